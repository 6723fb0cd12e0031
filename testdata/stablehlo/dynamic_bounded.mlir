// RUN: hlo-opt %s
// Bounded dynamic shapes read as XLA's translation reads them:
// tensor<4x?xf32, #stablehlo.bounds<?, 4>> is f32[4,<=4]; set_dimension_size
// becomes set-dimension-size, get_dimension_size of a dynamic dimension
// get-dimension-size and of a static one the constant XLA's builder folds
// it to.
func.func @main(%arg0: tensor<4x4xf32>, %arg1: tensor<i32>) -> (tensor<4x?xf32, #stablehlo.bounds<?, 4>>, tensor<i32>) {
  %0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 1 : (tensor<4x4xf32>, tensor<i32>) -> tensor<4x?xf32, #stablehlo.bounds<?, 4>>
  %1 = stablehlo.negate %0 : tensor<4x?xf32, #stablehlo.bounds<?, 4>>
  %2 = stablehlo.get_dimension_size %1, dim = 1 : (tensor<4x?xf32, #stablehlo.bounds<?, 4>>) -> tensor<i32>
  %3 = stablehlo.get_dimension_size %1, dim = 0 : (tensor<4x?xf32, #stablehlo.bounds<?, 4>>) -> tensor<i32>
  %4 = stablehlo.add %2, %3 : tensor<i32>
  return %1, %4 : tensor<4x?xf32, #stablehlo.bounds<?, 4>>, tensor<i32>
}
