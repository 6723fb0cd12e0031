// RUN-ERROR: hlo-run %s
// dynamic_pad, dynamic_gather and dynamic_conv whose sizes are constants are
// their static ops. [1, 2, 3] padded low 2, high -1, interior 1 with 0:
// [0, 0, 1, 0, 2, 0, 3] without its last element. A size computed at run
// time is an error (dynamic shapes are not read).
func.func @pad() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %low = stablehlo.constant dense<2> : tensor<1xi64>
  %high = stablehlo.constant dense<-1> : tensor<1xi64>
  %interior = stablehlo.constant dense<1> : tensor<1xi64>
  %r = stablehlo.dynamic_pad %x, %zero, %low, %high, %interior
    : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6xi32>
  check.expect_eq_const %r, dense<[0, 0, 1, 0, 2, 0]> : tensor<6xi32>
  func.return
}

// -----

func.func @computed_size() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %low = stablehlo.add %one, %one : tensor<1xi64>
  %r = stablehlo.dynamic_pad %x, %zero, %low, %one, %one
    : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<8xi32>
  func.return
}
