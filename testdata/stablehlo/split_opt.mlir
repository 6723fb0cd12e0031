// RUN-ERROR: hlo-opt %s
// hlo-opt reads each module of a split StableHLO file on its own: the ones
// that work are printed, an error names its line in the whole file.
func.func @one() -> tensor<i32> {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @two() -> tensor<i32> {
  %0 = stablehlo.constant dense<1> : tensor<i64>
  func.return %0 : tensor<i32>
}

// -----

func.func @three() -> tensor<i32> {
  %0 = stablehlo.constant dense<3> : tensor<i32>
  check.expect_eq_const %0, dense<3> : tensor<i32>
  func.return %0 : tensor<i32>
}
