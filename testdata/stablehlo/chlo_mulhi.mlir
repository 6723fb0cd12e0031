// RUN: hlo-run %s
// chlo.mulhi, the high half of the double-width product; the expected
// values are Python's exact integer products (a * b) >> bits, wrapped.
func.func @mulhi_i64() {
  %a = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807, -1, 0, 1, 8261657684473197624, 2784249659845191438, -8531699129511414324, -1509457273540090022, 8258772313671944433]> : tensor<10xi64>
  %b = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807, -9223372036854775808, 9223372036854775807, -1, 1577960769301841103, 8785356068037452444, -3881023613069443411, 750522153793611428, 3357357195551156271]> : tensor<10xi64>
  %r = chlo.mulhi %a, %b : tensor<10xi64>
  check.expect_eq_const %r, dense<[4611686018427387904, 4611686018427387903, 0, 0, -1, 706713968785397812, 1326013118971691321, 1794990251338116247, -61413608790254328, 1503118845414180277]> : tensor<10xi64>
  func.return
}

// -----

func.func @mulhi_ui64() {
  %a = stablehlo.constant dense<[0, 18446744073709551615, 18446744073709551614, 0, 1, 3465608723044488519, 10410757471710933047, 3799267732704684465, 9808507260218814804, 5794992457191552792]> : tensor<10xui64>
  %b = stablehlo.constant dense<[0, 18446744073709551615, 0, 18446744073709551615, 5, 17034486841352872401, 5529725096132913496, 4502785970640448032, 16143437395134509574, 8279529517580348704]> : tensor<10xui64>
  %r = chlo.mulhi %a, %b : tensor<10xui64>
  check.expect_eq_const %r, dense<[0, 18446744073709551614, 0, 0, 0, 3200286508778318124, 3120801515489145743, 927388019109076476, 8583792471037558428, 2600990771691474283]> : tensor<10xui64>
  func.return
}

// -----

func.func @mulhi_i32() {
  %a = stablehlo.constant dense<[-2147483648, 2147483647, -1, 0, 1, -1833088306, 51251132, -678365138, 1860881378, -336302999]> : tensor<10xi32>
  %b = stablehlo.constant dense<[-2147483648, 2147483647, -2147483648, 2147483647, -1, 1367317194, 1275141341, -988103295, -1868310862, -233471120]> : tensor<10xi32>
  %r = chlo.mulhi %a, %b : tensor<10xi32>
  check.expect_eq_const %r, dense<[1073741824, 1073741823, 0, 0, -1, -583569790, 15216050, 156065176, -809483438, 18281172]> : tensor<10xi32>
  func.return
}

// -----

func.func @mulhi_ui32() {
  %a = stablehlo.constant dense<[0, 4294967295, 4294967294, 0, 1, 3077892946, 1490376253, 4040054837, 1526706729, 2623879480]> : tensor<10xui32>
  %b = stablehlo.constant dense<[0, 4294967295, 0, 4294967295, 5, 2120395274, 1234510745, 3171246566, 1708957520, 2132480060]> : tensor<10xui32>
  %r = chlo.mulhi %a, %b : tensor<10xui32>
  check.expect_eq_const %r, dense<[0, 4294967294, 0, 0, 0, 1519534191, 428381724, 2983028541, 607473064, 1302773754]> : tensor<10xui32>
  func.return
}

// -----

func.func @mulhi_i8() {
  %a = stablehlo.constant dense<[-128, 127, -1, 0, 1, -43, 101, 77, 14, -58]> : tensor<10xi8>
  %b = stablehlo.constant dense<[-128, 127, -128, 127, -1, 92, 14, 84, 55, 66]> : tensor<10xi8>
  %r = chlo.mulhi %a, %b : tensor<10xi8>
  check.expect_eq_const %r, dense<[64, 63, 0, 0, -1, -16, 5, 25, 3, -15]> : tensor<10xi8>
  func.return
}

// -----

func.func @mulhi_ui16() {
  %a = stablehlo.constant dense<[0, 65535, 65534, 0, 1, 30245, 19781, 10876, 23097, 19830]> : tensor<10xui16>
  %b = stablehlo.constant dense<[0, 65535, 0, 65535, 5, 30403, 30583, 1581, 63565, 23900]> : tensor<10xui16>
  %r = chlo.mulhi %a, %b : tensor<10xui16>
  check.expect_eq_const %r, dense<[0, 65534, 0, 0, 0, 14031, 9230, 262, 22402, 7231]> : tensor<10xui16>
  func.return
}
