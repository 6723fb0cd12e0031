// RUN-ERROR: hlo-run %s
// interpreter.probe records each value it sees; check.expect_serialized_eq
// compares the iter-th one: a different value, or an iter the probe never
// reached (the loop runs twice: values 1 and 2), is an error at the check.
func.func @wrong_value() {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %r0, %r1 = stablehlo.while(%arg0 = %init_i, %arg1 = %init_i) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %arg0, %two : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.add %arg1, %one : tensor<i64>
    %p = interpreter.probe %s, probe_id = "sum" : tensor<i64>
    %i = stablehlo.add %arg0, %one : tensor<i64>
    stablehlo.return %i, %p : tensor<i64>, tensor<i64>
  }
  check.expect_serialized_eq %one, probe_id = "sum", iter = 0 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sum", iter = 1 : tensor<i64>
  func.return
}

// -----

func.func @past_the_last_run() {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %p = interpreter.probe %one, probe_id = "once" : tensor<i64>
  check.expect_serialized_eq %p, probe_id = "once", iter = 1 : tensor<i64>
  func.return
}
