// RUN: hlo-run %s
// A while whose regions use values from outside (implicit captures, which
// StableHLO allows): they become extra loop values, passed through. Two
// nested loops, i < n and j < m, add k each inner trip: n * m * k = 4 * 3 * 2
// = 24; the inner loop captures k from the function, two regions out.
func.func @main() -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<4> : tensor<i64>
  %m = stablehlo.constant dense<3> : tensor<i64>
  %k = stablehlo.constant dense<2> : tensor<i64>
  %i, %acc = stablehlo.while(%a = %zero, %b = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %a, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j, %inner = stablehlo.while(%x = %zero, %y = %b) : tensor<i64>, tensor<i64>
    cond {
      %c = stablehlo.compare LT, %x, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %x1 = stablehlo.add %x, %one : tensor<i64>
      %y1 = stablehlo.add %y, %k : tensor<i64>
      stablehlo.return %x1, %y1 : tensor<i64>, tensor<i64>
    }
    %a1 = stablehlo.add %a, %one : tensor<i64>
    stablehlo.return %a1, %inner : tensor<i64>, tensor<i64>
  }
  check.expect_eq_const %i, dense<4> : tensor<i64>
  func.return %acc : tensor<i64>
}
