// RUN: hlo-run %s
// chlo.scan as HLO's scan: a reverse cumulative product (suffix products of
// [1, 2, 3, 4]: 24, 24, 12, 4; the carry 24) in the pretty form, and a running
// maximum along dimension 1 in the generic form (operandSegmentSizes).
func.func @reverse_product() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %0:2 = chlo.scan(%x) inits(%one) dimension=0 attributes {is_reverse = true} {
  ^bb0(%e: tensor<f32>, %c: tensor<f32>):
    %p = stablehlo.multiply %e, %c : tensor<f32>
    stablehlo.return %p, %p : tensor<f32>, tensor<f32>
  } : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
  check.expect_eq_const %0#0, dense<[24.0, 24.0, 12.0, 4.0]> : tensor<4xf32>
  check.expect_eq_const %0#1, dense<24.0> : tensor<f32>
  func.return
}

// -----

func.func @running_max() {
  %x = stablehlo.constant dense<[[3, 1, 4], [1, 5, 9]]> : tensor<2x3xi32>
  %low = stablehlo.constant dense<-100> : tensor<2xi32>
  %0:2 = "chlo.scan"(%x, %low) <{dimension = 1 : i64, operandSegmentSizes = array<i32: 1, 1>,
                                 resultSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%e: tensor<2xi32>, %c: tensor<2xi32>):
    %m = stablehlo.maximum %e, %c : tensor<2xi32>
    stablehlo.return %m, %m : tensor<2xi32>, tensor<2xi32>
  }) : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
  check.expect_eq_const %0#0, dense<[[3, 3, 4], [1, 5, 9]]> : tensor<2x3xi32>
  check.expect_eq_const %0#1, dense<[4, 9]> : tensor<2xi32>
  func.return
}
