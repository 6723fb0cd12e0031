// RUN: hlo-opt %s
// Unbounded dynamic shapes read as XLA's translation reads them:
// tensor<?x4xf32> is f32[?,4]; the dynamic ops with an unbounded result
// become XLA's custom calls (mhlo.dynamic_broadcast_in_dim with its
// broadcast_dimensions in backend_config, mhlo.dynamic_reshape,
// mhlo.real_dynamic_slice; mhlo.dynamic_iota with its iota_dimension, for
// which XLA's translation has no form), get_dimension_size of an unbounded
// dimension get-dimension-size, and JAX's shape_assertion a side-effecting
// custom call with its message in backend_config. A dimension bounded in
// #stablehlo.bounds and one left '?' mix.
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x?xf32, #stablehlo.bounds<?, 8>>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x4xi32>, tensor<?x?xf32, #stablehlo.bounds<?, 8>>) {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %c = stablehlo.constant dense<1> : tensor<i32>
  %1 = stablehlo.compare  GE, %0, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "b = {0} is below 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %2 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %3 = stablehlo.concatenate %2, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %cst = stablehlo.constant dense<2.0> : tensor<4xf32>
  %4 = stablehlo.dynamic_broadcast_in_dim %cst, %3, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %5 = stablehlo.multiply %arg0, %4 : tensor<?x4xf32>
  %6 = stablehlo.multiply %2, %c4 : tensor<1xi32>
  %7 = stablehlo.dynamic_reshape %5, %6 : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %8 = stablehlo.real_dynamic_slice %7, %c1, %6, %c1 : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %9 = stablehlo.dynamic_iota %3, dim = 1 : (tensor<2xi32>) -> tensor<?x4xi32>
  %10 = stablehlo.negate %arg1 : tensor<?x?xf32, #stablehlo.bounds<?, 8>>
  return %5, %7, %8, %9, %10 : tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x4xi32>, tensor<?x?xf32, #stablehlo.bounds<?, 8>>
}
