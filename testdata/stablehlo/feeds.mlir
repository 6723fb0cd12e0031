// RUN: hlo-run %s --infeed stablehlo/feeds.feed.txt --outfeed -
// infeed and outfeed read as XLA's translation writes them (a tuple of the
// data, and the token): the values fed come out of outfeed, the second
// doubled, and the first is the result.
func.func @main() -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  %in:3 = "stablehlo.infeed"(%t) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<2xi32>, tensor<f32>, !stablehlo.token)
  %d = stablehlo.add %in#1, %in#1 : tensor<f32>
  %o = "stablehlo.outfeed"(%in#0, %d, %in#2) <{outfeed_config = ""}> : (tensor<2xi32>, tensor<f32>, !stablehlo.token) -> !stablehlo.token
  return %in#0 : tensor<2xi32>
}
