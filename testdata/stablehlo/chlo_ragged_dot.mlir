// RUN: hlo-run %s
// chlo.ragged_dot as HLO's ragged-dot: rows 0-1 of lhs times group 0 of rhs,
// rows 2-4 times group 1 (group sizes [2, 3]); expected from numpy's matmul
// of those slices (exact: small binary fractions).
func.func @ragged() {
  %lhs = stablehlo.constant dense<[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<5x2xf32>
  %rhs = stablehlo.constant dense<[[[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]], [[3.0, 3.5, 4.0], [4.5, 5.0, 5.5]]]> : tensor<2x2x3xf32>
  %sizes = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = "chlo.ragged_dot"(%lhs, %rhs, %sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [],
      rhs_batching_dimensions = [], lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<5x2xf32>, tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  check.expect_eq_const %r, dense<[[-3.0, -5.5, -8.0], [0.0, -0.5, -1.0], [12.0, 13.5, 15.0], [27.0, 30.5, 34.0], [42.0, 47.5, 53.0]]> : tensor<5x3xf32>
  func.return
}
