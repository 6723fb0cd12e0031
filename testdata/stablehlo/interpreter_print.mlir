// RUN: hlo-run %s
// interpreter.print prints its operand as it runs, each time (a while body
// prints its state on every iteration: 1, then 2), before the result.
func.func @main() -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %r = stablehlo.while(%i = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %two : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i64>
    interpreter.print %n : tensor<i64>
    stablehlo.return %n : tensor<i64>
  }
  %v = stablehlo.iota dim = 0 : tensor<3xi32>
  interpreter.print %v : tensor<3xi32>
  return %r : tensor<i64>
}
