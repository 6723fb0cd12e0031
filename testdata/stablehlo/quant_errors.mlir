// RUN-ERROR: hlo-run %s
// Quantized programs that StableHLO's quant-to-math lowering cannot lower,
// and bad quantized types: each a located error, the other splits still run.

// reduce has no rule on quantized types (its body would add in the storage type).
func.func @reduce_quantized(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  %z = stablehlo.constant dense<0> : tensor<i8>
  %zq = stablehlo.bitcast_convert %z : (tensor<i8>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  %r = stablehlo.reduce(%a init: %zq) applies stablehlo.add across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  return %r : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

// The lowering computes in f32: a bf16 expressed type cannot be dequantized.
func.func @bf16_expressed() -> tensor<2xf32> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  %q = stablehlo.bitcast_convert %c : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:bf16, 0.5>>
  %n = stablehlo.negate %q : tensor<2x!quant.uniform<i8:bf16, 0.5>>
  %d = stablehlo.bitcast_convert %n : (tensor<2x!quant.uniform<i8:bf16, 0.5>>) -> tensor<2xi8>
  %f = stablehlo.convert %d : (tensor<2xi8>) -> tensor<2xf32>
  return %f : tensor<2xf32>
}

// -----

// uniform_quantize quantizes f32 only.
func.func @quantize_f64() -> tensor<2xi8> {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %q = stablehlo.uniform_quantize %c : (tensor<2xf64>) -> tensor<2x!quant.uniform<i8:f64, 0.5>>
  %d = stablehlo.bitcast_convert %q : (tensor<2x!quant.uniform<i8:f64, 0.5>>) -> tensor<2xi8>
  return %d : tensor<2xi8>
}

// -----

// A zero point outside the storage range.
func.func @zero_point_range(%a: tensor<2x!quant.uniform<i8<-100:100>:f32, 0.5:101>>) -> tensor<2x!quant.uniform<i8<-100:100>:f32, 0.5:101>> {
  return %a : tensor<2x!quant.uniform<i8<-100:100>:f32, 0.5:101>>
}

// -----

// Per-axis: one scale per index of the quantized dimension.
func.func @per_axis_count(%a: tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>> {
  return %a : tensor<2x3x!quant.uniform<i8:f32:1, {0.5:1, 0.25}>>
}

// -----

// Requantizing cannot move the quantized dimension.
func.func @requantize_axis(%a: tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  %r = stablehlo.uniform_quantize %a : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  return %r : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

// Dimension numbers out of range are an error before the zero-point sums
// read them (a dot_general and a convolution of rank-2 operands).
func.func @dims_out_of_range(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [7] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
  return %r : tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

func.func @conv_rank(%a: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>> {
  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 2], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
  return %r : tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
}
