// RUN-ERROR: hlo-run %s
// Checks that do not hold (by CheckOps.td's definitions): each is an error at
// the check's line naming the actual and the expected element and its index,
// the other splits still run (their `()` printed), and the exit status is 1.

// The first element that differs, at its row-major index.
func.func @eq_index() {
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  check.expect_eq_const %0, dense<[[1, 2], [3, 5]]> : tensor<2x2xi32>
  func.return
}

// -----

// NaN is not equal to NaN under expect_eq (IEEE ==).
func.func @eq_nan() {
  %0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  check.expect_eq %0, %0 : tensor<f32>
  func.return
}

// -----

func.func @passes() {
  %0 = stablehlo.constant dense<1> : tensor<i8>
  check.expect_eq_const %0, dense<1> : tensor<i8>
  func.return
}

// -----

// 1.001 is 1e-3 from 1.0: beyond the default tolerance 1e-4.
func.func @almost_eq_tolerance() {
  %0 = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  check.expect_almost_eq_const %0, dense<[1.00001, 1.001]> : tensor<2xf64>
  func.return
}

// -----

// NaN against a number, and an infinity against the largest f32.
func.func @almost_eq_nonfinite() {
  %0 = stablehlo.constant dense<[0x7FC00000]> : tensor<1xf32>
  check.expect_almost_eq_const %0, dense<[1.0]> : tensor<1xf32>, tolerance = 10.0
  func.return
}

// -----

func.func @almost_eq_inf() {
  %0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
  check.expect_almost_eq_const %0, dense<3.4028235e+38> : tensor<f32> {tolerance = 1.0e+39 : f64}
  func.return
}

// -----

// 3 ULPs apart: outside [0, 2], and outside [4, 9].
func.func @close_max() {
  %0 = stablehlo.constant dense<5.0> : tensor<f16>
  %1 = stablehlo.constant dense<5.01> : tensor<f16>
  check.expect_close %0, %1, max_ulp_difference = 2 : tensor<f16>, tensor<f16>
  func.return
}

// -----

func.func @close_min() {
  %0 = stablehlo.constant dense<5.0> : tensor<f16>
  %1 = stablehlo.constant dense<5.01> : tensor<f16>
  check.expect_close %0, %1, max_ulp_difference = 9, min_ulp_difference = 4 : tensor<f16>, tensor<f16>
  func.return
}

// -----

// A finite value and an infinity are the largest distance apart.
func.func @close_inf() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[1.0, 0x7F800000]> : tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 1000 : tensor<2xf32>, tensor<2xf32>
  func.return
}
