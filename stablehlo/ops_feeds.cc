// Host and device transfers: infeed, outfeed, send, recv, as XLA's
// StableHLO-to-HLO translation writes them. Several data values travel as
// one tuple; send and recv become HLO's send/send-done and recv/recv-done
// pairs on the channel's handle, a `source_target_pairs` attribute XLA's
// `_xla_send_recv_source_target_pairs` frontend attribute.
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/op_util.h"

namespace hlo::stablehlo {

namespace {

Type TupleOf(const std::vector<Type>& elements) {
  Type t;
  t.kind = Type::Kind::kTuple;
  t.elements = elements;
  return t;
}

Type TokenType() {
  Type t;
  t.kind = Type::Kind::kToken;
  return t;
}

// The data operands (all but the last, a token) as one value: the one
// array, or a tuple of them.
absl::StatusOr<Value> DataOperand(Translator& t, const Op& op, Scope& s,
                                  const std::vector<Value>& in) {
  if (in.empty() || in.back().type.kind != Type::Kind::kToken) {
    return t.Error(op.name_pos, StrCat(op.name, " takes its data and a token, the token last"));
  }
  if (in.size() == 2) return in[0];
  std::vector<Type> types;
  std::vector<std::string> names;
  for (size_t i = 0; i + 1 < in.size(); ++i) {
    types.push_back(in[i].type);
    names.push_back(in[i].name);
  }
  Type tuple = TupleOf(types);
  return Value{t.Emit(s, op, "tuple", tuple, StrCat("tuple(", StrJoin(names, ", "), ")")), tuple};
}

// The data results (all but the last, a token), checked.
absl::StatusOr<std::vector<Type>> DataResults(const Translator& t, const Op& op) {
  if (op.result_types.empty() || op.result_types.back().kind != Type::Kind::kToken) {
    return t.Error(op.name_pos, StrCat(op.name, " gives its data and a token, the token last"));
  }
  return std::vector<Type>(op.result_types.begin(), op.result_types.end() - 1);
}

// Binds the op's results from `pair`, an HLO (data, token) tuple: data
// result i to element i of the data (or to the data itself when it is the
// one array, `data_is_tuple` false), the last result to the token.
absl::Status BindDataAndToken(Translator& t, Scope& s, const Op& op, const std::string& pair,
                              const Type& data_type, bool data_is_tuple) {
  if (op.results.size() != op.result_types.size()) {
    return t.Error(op.pos, StrCat(op.name, " has ", op.result_types.size(), " results but ",
                                  op.results.size(), " are named"));
  }
  const std::string data = t.Emit(s, op, "get-tuple-element", data_type,
                                  StrCat("get-tuple-element(", pair, "), index=0"));
  const std::string token = t.Emit(s, op, "get-tuple-element", TokenType(),
                                   StrCat("get-tuple-element(", pair, "), index=1"));
  const size_t n = op.result_types.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    std::string v = data;
    if (data_is_tuple) {
      v = t.Emit(s, op, "get-tuple-element", op.result_types[i],
                 StrCat("get-tuple-element(", data, "), index=", i));
    }
    s.values[op.results[i]] = Value{v, op.result_types[i]};
  }
  s.values[op.results[n]] = Value{token, op.result_types[n]};
  return absl::OkStatus();
}

// `, channel_id=H, is_host_transfer=true`: channel_handle and is_host_transfer.
absl::Status ChannelText(const Translator& t, const Op& op, std::string* out) {
  int64_t handle = 0;
  if (const Attr* ch = op.FindAttr("channel_handle")) {
    if (const Attr* h = ch->Find("handle"))
      HLO_RETURN_IF_ERROR(AttrInt(t.lex(), *h, "handle", &handle));
  }
  *out = StrCat(", channel_id=", handle);
  if (OptionalBool(op, "is_host_transfer")) *out += ", is_host_transfer=true";
  return absl::OkStatus();
}

// `, frontend_attributes={...}`: the op's mhlo.frontend_attributes and, of
// a `source_target_pairs` attribute, `_xla_send_recv_source_target_pairs=
// "{{0,1},...}"` (empty when there are neither).
absl::Status PairsText(const Translator& t, const Op& op, std::string* out) {
  out->clear();
  std::vector<std::string> entries = FrontendAttributeEntries(op);
  bool has_pairs = false;
  for (const std::string& e : entries)
    has_pairs |= e.starts_with("_xla_send_recv_source_target_pairs=");
  if (const Attr* p = op.FindAttr("source_target_pairs"); p && !has_pairs) {
    std::vector<std::vector<int64_t>> pairs;
    HLO_RETURN_IF_ERROR(AttrIntMatrix(t.lex(), *p, "source_target_pairs", &pairs));
    std::vector<std::string> parts;
    for (const auto& pr : pairs) {
      if (pr.size() != 2) return t.Error(p->pos, "source_target_pairs are [source, target] pairs");
      parts.push_back(IntList(pr));
    }
    if (!parts.empty()) {
      entries.push_back(
          StrCat("_xla_send_recv_source_target_pairs=\"{", StrJoin(parts, ","), "}\""));
    }
  }
  if (!entries.empty()) *out = StrCat(", frontend_attributes={", StrJoin(entries, ","), "}");
  return absl::OkStatus();
}

// infeed(token) -> (data..., token): HLO's infeed of a tuple of the data.
absl::Status Infeed(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(std::vector<Type> data, DataResults(t, op));
  if (in[0].type.kind != Type::Kind::kToken) return t.Error(op.name_pos, "infeed takes a token");
  std::string config;
  if (const Attr* c = op.FindAttr("infeed_config"); c && c->kind == Attr::Kind::kString) {
    config = c->s;
  }
  const Type data_tuple = TupleOf(data);
  const std::string feed =
      t.Emit(s, op, "infeed", TupleOf({data_tuple, TokenType()}),
             StrCat("infeed(", in[0].name, "), infeed_config=", HloQuoted(config)));
  return BindDataAndToken(t, s, op, feed, data_tuple, /*data_is_tuple=*/true);
}

// outfeed(inputs..., token): HLO's outfeed of the one input, or of the
// tuple of several, and the token.
absl::Status Outfeed(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type token, t.SingleResult(op));
  if (token.kind != Type::Kind::kToken) return t.Error(op.name_pos, "outfeed gives a token");
  HLO_ASSIGN_OR_RETURN(Value data, DataOperand(t, op, s, in));
  std::string config;
  if (const Attr* c = op.FindAttr("outfeed_config"); c && c->kind == Attr::Kind::kString) {
    config = c->s;
  }
  return t.BindResults(s, op,
                       t.Emit(s, op, "outfeed", token,
                              StrCat("outfeed(", data.name, ", ", in.back().name,
                                     "), outfeed_config=", HloQuoted(config))));
}

// send(inputs..., token) -> token: HLO's send of the data (a tuple when
// several) and its send-done.
absl::Status Send(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(Type token, t.SingleResult(op));
  if (token.kind != Type::Kind::kToken) return t.Error(op.name_pos, "send gives a token");
  HLO_ASSIGN_OR_RETURN(Value data, DataOperand(t, op, s, in));
  std::string channel, pairs;
  HLO_RETURN_IF_ERROR(ChannelText(t, op, &channel));
  HLO_RETURN_IF_ERROR(PairsText(t, op, &pairs));
  Type u32;
  u32.element = "u32";
  const std::string send =
      t.Emit(s, op, "send", TupleOf({data.type, u32, TokenType()}),
             StrCat("send(", data.name, ", ", in.back().name, ")", channel, pairs));
  return t.BindResults(s, op,
                       t.Emit(s, op, "send-done", token, StrCat("send-done(", send, ")", channel)));
}

// recv(token) -> (data..., token): HLO's recv of the data (a tuple when
// several) and its recv-done.
absl::Status Recv(Translator& t, const Op& op, Scope& s) {
  HLO_RETURN_IF_ERROR(ExpectOperands(t, op, 1));
  HLO_ASSIGN_OR_RETURN(std::vector<Value> in, t.Operands(s, op));
  HLO_ASSIGN_OR_RETURN(std::vector<Type> data, DataResults(t, op));
  if (in[0].type.kind != Type::Kind::kToken) return t.Error(op.name_pos, "recv takes a token");
  std::string channel, pairs;
  HLO_RETURN_IF_ERROR(ChannelText(t, op, &channel));
  HLO_RETURN_IF_ERROR(PairsText(t, op, &pairs));
  const Type shape = data.size() == 1 ? data[0] : TupleOf(data);
  Type u32;
  u32.element = "u32";
  const std::string recv = t.Emit(s, op, "recv", TupleOf({shape, u32, TokenType()}),
                                  StrCat("recv(", in[0].name, ")", channel, pairs));
  const std::string done = t.Emit(s, op, "recv-done", TupleOf({shape, TokenType()}),
                                  StrCat("recv-done(", recv, ")", channel));
  return BindDataAndToken(t, s, op, done, shape, data.size() != 1);
}

}  // namespace

std::vector<OpEntry> FeedOps() {
  return {
      {"stablehlo.infeed", &Infeed},
      {"stablehlo.outfeed", &Outfeed},
      {"stablehlo.send", &Send},
      {"stablehlo.recv", &Recv},
  };
}

}  // namespace hlo::stablehlo
