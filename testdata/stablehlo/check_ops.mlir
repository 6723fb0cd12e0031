// RUN: hlo-run %s
// The check ops of StableHLO's interpreter tests (its tests/CheckOps.td), in
// a file split by `// -----` as stablehlo-translate --interpret
// -split-input-file reads it: every check here holds (by the definitions in
// CheckOps.td), so each split prints its empty result `()`.

// expect_eq: integers exactly; floats by IEEE ==, so -0 equals +0.
func.func @eq() {
  %0 = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  %1 = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_eq %0, %1 : tensor<3xi64>
  %2 = stablehlo.constant dense<[0.0, 1.5]> : tensor<2xf32>
  check.expect_eq_const %2, dense<[-0.0, 1.5]> : tensor<2xf32>
  %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const %3, dense<[true, false]> : tensor<2xi1>
  func.return
}

// -----

// expect_almost_eq: |a - b| <= 1e-4 by default, the tolerance given, both
// parts of a complex number; NaN matches NaN, infinities only themselves.
func.func @almost_eq() {
  %0 = stablehlo.constant dense<1.0> : tensor<f64>
  %1 = stablehlo.constant dense<1.00005> : tensor<f64>
  check.expect_almost_eq %0, %1 : tensor<f64>
  check.expect_almost_eq_const %0, dense<1.001> : tensor<f64> {tolerance = 0.01 : f64}
  check.expect_almost_eq %0, %1, tolerance = 0.001 : tensor<f64>
  %2 = stablehlo.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  check.expect_almost_eq_const %2, dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  %3 = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  check.expect_almost_eq_const %3, dense<[(1.00001, 1.99999)]> : tensor<1xcomplex<f32>>
  func.return
}

// -----

// expect_close: the distance in encodings. f16 5.0 and 5.01 (which rounds to
// 5 + 3/256, the spacing there being 1/256) are 3 ULPs apart; -0 and +0 none.
func.func @close() {
  %0 = stablehlo.constant dense<5.0> : tensor<f16>
  %1 = stablehlo.constant dense<5.01> : tensor<f16>
  check.expect_close %0, %1, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  check.expect_close %0, %1, max_ulp_difference = 4, min_ulp_difference = 3 : tensor<f16>, tensor<f16>
  %2 = stablehlo.constant dense<[0.0, 0x7FC00000]> : tensor<2xf32>
  %3 = stablehlo.constant dense<[-0.0, 0x7FC00001]> : tensor<2xf32>
  check.expect_close %2, %3, max_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  func.return
}

// -----

// The generic form, and an `// // -----` line, which splits here too (MLIR's
// -split-input-file finds the marker anywhere on a line).
func.func @generic() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xui8>
  "check.expect_eq_const"(%0) {value = dense<[1, 2]> : tensor<2xui8>} : (tensor<2xui8>) -> ()
  %1 = stablehlo.constant dense<0.5> : tensor<bf16>
  "check.expect_almost_eq"(%1, %1) {tolerance = 0.0 : f64} : (tensor<bf16>, tensor<bf16>) -> ()
  func.return
}

// // -----

func.func @after_commented_marker() {
  %0 = stablehlo.constant dense<7> : tensor<i4>
  check.expect_eq_const %0, dense<7> : tensor<i4>
  func.return
}
