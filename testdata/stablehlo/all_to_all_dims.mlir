// RUN: hlo-run %s
// all_to_all with split_dimension (1) != concat_dimension (2) on a grid of
// two replicas: device d receives block d of dimension 1 from each device k,
// concatenated along dimension 2 in k's order (the spec's definition; the
// expected values are numpy's concatenate of the slices).
module @a2a {
  func.func @f(%x: tensor<2x4x3xi32>) -> tensor<2x2x6xi32> {
    %0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 2 : i64,
        split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
        : (tensor<2x4x3xi32>) -> tensor<2x2x6xi32>
    func.return %0 : tensor<2x2x6xi32>
  }
  func.func @main() {
    %in0 = stablehlo.constant dense<[[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]], [[12, 13, 14], [15, 16, 17], [18, 19, 20], [21, 22, 23]]]> : tensor<2x4x3xi32>
    %in1 = stablehlo.constant dense<[[[100, 101, 102], [103, 104, 105], [106, 107, 108], [109, 110, 111]], [[112, 113, 114], [115, 116, 117], [118, 119, 120], [121, 122, 123]]]> : tensor<2x4x3xi32>
    %r:2 = "interpreter.run_parallel"(%in0, %in1) {programs = [[@f], [@f]]}
        : (tensor<2x4x3xi32>, tensor<2x4x3xi32>) -> (tensor<2x2x6xi32>, tensor<2x2x6xi32>)
    check.expect_eq_const %r#0, dense<[[[0, 1, 2, 100, 101, 102], [3, 4, 5, 103, 104, 105]], [[12, 13, 14, 112, 113, 114], [15, 16, 17, 115, 116, 117]]]> : tensor<2x2x6xi32>
    check.expect_eq_const %r#1, dense<[[[6, 7, 8, 106, 107, 108], [9, 10, 11, 109, 110, 111]], [[18, 19, 20, 118, 119, 120], [21, 22, 23, 121, 122, 123]]]> : tensor<2x2x6xi32>
    func.return
  }
}
