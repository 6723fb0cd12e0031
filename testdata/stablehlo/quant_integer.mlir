// RUN: hlo-run %s
// Quantized ops on the integer paths of StableHLO's quant-to-math lowering;
// expected values from numpy (scripts/gen-quant-goldens), not from hlo-run.

// dot_general with batch dimensions and three non-zero zero points:
// dot(lhs, rhs) * cs + res_zp - zp_offset * cs, each product by cs truncated.
func.func @dot_general_zero_points() {
  %lhs_raw = stablehlo.constant dense<[15, 7, -20, -19, 3, 3, -9, 16, -5, 13, 11, 8, 5, 3, -18, -2, 10, -19, 18, 14, 14, 5, 6, -13]> : tensor<2x3x4xi8>
  %lhs = stablehlo.bitcast_convert %lhs_raw : (tensor<2x3x4xi8>) -> tensor<2x3x4x!quant.uniform<i8:f32, 0.5:3>>
  %rhs_raw = stablehlo.constant dense<[8, -14, -3, -4, -17, 8, 8, 5, 12, -6, -17, -4, -17, -3, -9, 6, -9, -3, 17, -2, -11, 17, 4, 14, 9, -20, 4, 14, 11, 11, -6, -8, -5, 0, -11, 17, 1, 9, -5, -8]> : tensor<2x4x5xi8>
  %rhs = stablehlo.bitcast_convert %rhs_raw : (tensor<2x4x5xi8>) -> tensor<2x4x5x!quant.uniform<i8:f32, 0.25:-2>>
  %r = stablehlo.dot_general %lhs, %rhs, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4x!quant.uniform<i8:f32, 0.5:3>>, tensor<2x4x5x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<2x3x5x!quant.uniform<i8:f32, 2.0:5>>
  %s = stablehlo.bitcast_convert %r : (tensor<2x3x5x!quant.uniform<i8:f32, 2.0:5>>) -> tensor<2x3x5xi8>
  check.expect_eq_const %s, dense<[26, 11, 29, -16, 3, 23, 1, 14, 21, 10, 1, 13, 2, 20, 7, 3, 14, 6, 6, 20, 35, 2, -8, -5, -20, -23, 15, 0, 21, 18]> : tensor<2x3x5xi8>
  func.return
}

// -----

// dot of i8 into i32 storage, the lhs zero point only; the combined
// scale is 1, so no product by it.
func.func @dot_i32_storage() {
  %lhs_raw = stablehlo.constant dense<[88, -44, 80, 67, 3, -89, 71, -52, 65, 28, 52, 31, 95, 86, -27, -100, 9, -53]> : tensor<3x6xi8>
  %lhs = stablehlo.bitcast_convert %lhs_raw : (tensor<3x6xi8>) -> tensor<3x6x!quant.uniform<i8:f32, 0.125:-7>>
  %rhs_raw = stablehlo.constant dense<[45, 16, 49, 73, -25, 79, 95, -31, 26, -75, 43, 6]> : tensor<6x2xi8>
  %rhs = stablehlo.bitcast_convert %rhs_raw : (tensor<6x2xi8>) -> tensor<6x2x!quant.uniform<i8:f32, 0.5>>
  %r = stablehlo.dot %lhs, %rhs : (tensor<3x6x!quant.uniform<i8:f32, 0.125:-7>>, tensor<6x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x2x!quant.uniform<i32:f32, 0.0625>>
  %s = stablehlo.bitcast_convert %r : (tensor<3x2x!quant.uniform<i32:f32, 0.0625>>) -> tensor<3x2xi32>
  check.expect_eq_const %s, dense<[4051, 2156, 5998, -1631, -750, 8248]> : tensor<3x2xi32>
  func.return
}

// -----

// NHWC convolution on the integer path, padding: the lhs is padded with its zero point, not with zeros.
func.func @conv_padding_zero_point() {
  %x_raw = stablehlo.constant dense<[24, 0, 29, 4, -7, -7, 2, -28, -14, 6, 18, 14, 19, -21, 29, -25, -27, -13, -18, -17, 26, 5, 18, -5, 0, -14, 24, -29, -4, 5, 3, -27, -26, -1, -3, -22, -2, 28, -9, -23]> : tensor<1x4x5x2xi8>
  %x = stablehlo.bitcast_convert %x_raw : (tensor<1x4x5x2xi8>) -> tensor<1x4x5x2x!quant.uniform<i8:f32, 0.5:-4>>
  %k_raw = stablehlo.constant dense<[26, 19, 6, 14, 13, 28, 12, 16, 5, 27, 10, 16, -18, 11, -26, 26, 2, 9, -11, 26, -29, 29, 29, 18, 28, -17, 17, -29, 3, -10, -27, 28, -15, 28, 29, 3]> : tensor<2x3x2x3xi8>
  %k = stablehlo.bitcast_convert %k_raw : (tensor<2x3x2x3xi8>) -> tensor<2x3x2x3x!quant.uniform<i8:f32, 0.25>>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x5x2x!quant.uniform<i8:f32, 0.5:-4>>, tensor<2x3x2x3x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x4x5x3x!quant.uniform<i8:f32, 16.0:-3>>
  %s = stablehlo.bitcast_convert %r : (tensor<1x4x5x3x!quant.uniform<i8:f32, 16.0:-3>>) -> tensor<1x4x5x3xi8>
  check.expect_eq_const %s, dense<[0, -2, -5, -10, 2, -11, 7, -5, 0, -13, -5, -10, 0, -3, -1, 6, 13, -2, 6, -9, -3, -15, -7, -15, -3, -10, -4, -5, -9, -1, -5, 9, -11, -10, 2, -11, 7, -9, -3, -23, -10, -19, -5, -4, -5, -12, 1, -9, 3, 4, -3, -18, -10, -11, 11, 6, -2, -6, -7, -3]> : tensor<1x4x5x3xi8>
  func.return
}

// -----

// NHWC convolution on the integer path, per-axis kernel and result (one scale ratio), no padding needed.
func.func @conv_per_axis() {
  %x_raw = stablehlo.constant dense<[27, 0, -9, -14, -29, -22, 4, -26, 22, 29, 8, -21, 9, -18, -23, 14, 18, 20, -24, -19, -20, -27, -30, -25, -3, -5, -28, 13, -29, -28, 5, 4, 4, 7, 8, 27, 21, -24, -29, -19]> : tensor<1x4x5x2xi8>
  %x = stablehlo.bitcast_convert %x_raw : (tensor<1x4x5x2xi8>) -> tensor<1x4x5x2x!quant.uniform<i8:f32, 0.5:-4>>
  %k_raw = stablehlo.constant dense<[27, 27, 19, 29, 27, 11, -13, -3, -12, -13, 25, 4, 2, -3, 5, 27, -2, -5, -11, -11, -6, 26, 21, 8, 26, -2, 13, -29, -19, -21, -2, 4, 0, -5, 5, -2]> : tensor<2x3x2x3xi8>
  %k = stablehlo.bitcast_convert %k_raw : (tensor<2x3x2x3xi8>) -> tensor<2x3x2x3x!quant.uniform<i8:f32:3, {0.25,0.5,1.0}>>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 0], [0, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x5x2x!quant.uniform<i8:f32, 0.5:-4>>, tensor<2x3x2x3x!quant.uniform<i8:f32:3, {0.25,0.5,1.0}>>) -> tensor<1x4x5x3x!quant.uniform<i8:f32:3, {16.0,32.0,64.0}>>
  %s = stablehlo.bitcast_convert %r : (tensor<1x4x5x3x!quant.uniform<i8:f32:3, {16.0,32.0,64.0}>>) -> tensor<1x4x5x3xi8>
  check.expect_eq_const %s, dense<[1, -2, 0, -1, 2, 0, 3, 4, 3, -7, -9, -4, 4, 3, 0, 5, 4, 6, -16, -10, -5, 4, -15, -6, -6, 7, -1, 11, 11, 6, -1, -2, -3, 3, 2, 2, -15, 1, -8, 19, 15, 9, -10, -9, -5, -5, -11, -4, -9, -13, -11, 11, 9, 9, -4, -8, -3, -11, -10, -5]> : tensor<1x4x5x3xi8>
  func.return
}

// -----

// Weight-only (hybrid) dot_general: f32 lhs, quantized rhs, f32 result;
// the rhs is dequantized and the dot runs in f32 (exact here).
func.func @hybrid_dot_general() {
  %lhs = stablehlo.constant dense<[-8.0, -5.0, 5.0, 6.0, -4.0, -7.0, -5.0, 1.0]> : tensor<2x4xf32>
  %rhs_raw = stablehlo.constant dense<[-36, -44, -12, -37, 33, 47, 40, 6, 37, 28, 39, -20]> : tensor<4x3xi8>
  %rhs = stablehlo.bitcast_convert %rhs_raw : (tensor<4x3xi8>) -> tensor<4x3x!quant.uniform<i8:f32, 0.5:6>>
  %r = stablehlo.dot_general %lhs, %rhs, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x3x!quant.uniform<i8:f32, 0.5:6>>) -> tensor<2x3xf32>
  check.expect_eq_const %r, dense<[426.5, 231.5, -31.0, 160.5, 22.0, -198.0]> : tensor<2x3xf32>
  func.return
}

// -----

// add with three different parameters: both operands requantized to the
// result's, summed in i32, clamped to i8 (some elements saturate).
func.func @add_requantized() {
  %lhs_raw = stablehlo.constant dense<[121, -97, -19, -95, 110, -20, 97, -87]> : tensor<8xi8>
  %lhs = stablehlo.bitcast_convert %lhs_raw : (tensor<8xi8>) -> tensor<8x!quant.uniform<i8:f32, 0.1:-30>>
  %rhs_raw = stablehlo.constant dense<[49, -117, 62, -94, -112, -116, -107, -116]> : tensor<8xi8>
  %rhs = stablehlo.bitcast_convert %rhs_raw : (tensor<8xi8>) -> tensor<8x!quant.uniform<i8:f32, 0.5:-20>>
  %r = stablehlo.add %lhs, %rhs : (tensor<8x!quant.uniform<i8:f32, 0.1:-30>>, tensor<8x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<8x!quant.uniform<i8:f32, 0.3:7>>
  %s = stablehlo.bitcast_convert %r : (tensor<8x!quant.uniform<i8:f32, 0.3:7>>) -> tensor<8xi8>
  check.expect_eq_const %s, dense<[127, -128, 127, -128, -99, -128, -96, -128]> : tensor<8xi8>
  func.return
}
