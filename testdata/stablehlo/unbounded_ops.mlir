// RUN: hlo-run %s --input "f32[2,4] {{1, 2, 3, 4}, {5, 6, 7, 8}}" --input "f32[4,3] {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}"
// Ops whose result shapes follow from unbounded operands refine by shape
// inference alone: dot_general over the dynamic batch, concatenate along it
// (2 + 2 rows), reduce across and along it, broadcast_in_dim of an
// unbounded vector, transposes. For x = [[1, 2, 3, 4], [5, 6, 7, 8]]
// (numpy): x @ w = [[5, 6, 7], [13, 14, 15]]; concatenate gives x twice;
// x.sum(0) = [6, 8, 10, 12]; x.sum(1)[:, None] + x = [[11, 12, 13, 14],
// [31, 32, 33, 34]].
func.func @main(%arg0: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> (tensor<?x3xf32>, tensor<?x4xf32>, tensor<4xf32>, tensor<?x4xf32>) {
  %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %1 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
  %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<?xf32>) -> tensor<?x4xf32>
  %5 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %6 = stablehlo.transpose %5, dims = [1, 0] : (tensor<4x?xf32>) -> tensor<?x4xf32>
  %7 = stablehlo.add %4, %6 : tensor<?x4xf32>
  return %0, %1, %2, %7 : tensor<?x3xf32>, tensor<?x4xf32>, tensor<4xf32>, tensor<?x4xf32>
}
