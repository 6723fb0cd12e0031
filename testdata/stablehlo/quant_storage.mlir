// RUN: hlo-run %s
// Quantized constants (MLIR prints them in the generic form, their value
// typed by the storage type) and the ops that work on the storage integers:
// dequantize((s - zp) * scale) of each expected value worked by hand.

// maximum of one quantized type compares the storage integers:
// max([10, -20], [4, 6]) = [10, 6] -> (10 + 2) * 0.5, (6 + 2) * 0.5.
func.func @constant_generic_forms() {
  %a = stablehlo.constant() <{value = dense<[10, -20]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-2>>
  %b = "stablehlo.constant"() <{value = dense<[4, 6]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 0.5:-2>>
  %m = stablehlo.maximum %a, %b : tensor<2x!quant.uniform<i8:f32, 0.5:-2>>
  %d = stablehlo.uniform_dequantize %m : (tensor<2x!quant.uniform<i8:f32, 0.5:-2>>) -> tensor<2xf32>
  check.expect_eq_const %d, dense<[6.0, 4.0]> : tensor<2xf32>
  func.return
}

// -----

// transpose, reshape and select move storage integers; per-axis parameters
// follow the quantized dimension: column j of [[1, 2], [3, 4]] (axis 1,
// scales 0.5 and 0.25, zero points 1 and 0) reads (s - zp_j) * scale_j.
func.func @per_axis_data_movement() {
  %c = stablehlo.constant() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>}> : () -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>
  %p = stablehlo.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %z = stablehlo.constant() <{value = dense<[[9, 9], [9, 9]]> : tensor<2x2xi8>}> : () -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>
  %s = stablehlo.select %p, %c, %z : tensor<2x2xi1>, tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>
  %d = stablehlo.uniform_dequantize %s : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>) -> tensor<2x2xf32>
  check.expect_eq_const %d, dense<[[0.0, 2.25], [4.0, 1.0]]> : tensor<2x2xf32>
  %t = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5:1, 0.25}>>
  %e = stablehlo.uniform_dequantize %t : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5:1, 0.25}>>) -> tensor<2x2xf32>
  check.expect_eq_const %e, dense<[[0.0, 1.0], [0.5, 1.0]]> : tensor<2x2xf32>
  func.return
}
