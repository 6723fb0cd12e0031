#include "ir/opcode_attributes.h"

#include <array>

namespace hlo {
namespace {

using K = AttrKind;
constexpr bool R = true;   // required
constexpr bool O = false;  // optional

constexpr AttrRule kNone[] = {{K::kMetadata, O}};  // placeholder, never used
constexpr AttrRule kParameter[] = {{K::kParameterReplication, O}};
constexpr AttrRule kIota[] = {{K::kIotaDimension, R}};
constexpr AttrRule kGte[] = {{K::kIndex, R}};
constexpr AttrRule kCompare[] = {{K::kDirection, R}, {K::kType, O}, {K::kOrder, O}};
constexpr AttrRule kDimensions[] = {{K::kDimensions, R}};
constexpr AttrRule kSlice[] = {{K::kSlice, R}};
constexpr AttrRule kDynamicSlice[] = {{K::kDynamicSliceSizes, R}};
constexpr AttrRule kPad[] = {{K::kPadding, R}};
constexpr AttrRule kReduce[] = {{K::kDimensions, R}, {K::kToApply, R}};
constexpr AttrRule kReduceWindow[] = {{K::kWindow, O}, {K::kToApply, R}};
constexpr AttrRule kSelectAndScatter[] = {{K::kWindow, O}, {K::kSelect, R}, {K::kScatter, R}};
constexpr AttrRule kMap[] = {{K::kDimensions, O}, {K::kToApply, R}};
constexpr AttrRule kSort[] = {{K::kDimensions, R}, {K::kIsStable, O}, {K::kToApply, R}};
constexpr AttrRule kCall[] = {{K::kToApply, R}, {K::kIsComposite, O}};
constexpr AttrRule kWhile[] = {{K::kCondition, R}, {K::kBody, R}};
constexpr AttrRule kConditional[] = {
    {K::kTrueComputation, O}, {K::kFalseComputation, O}, {K::kBranchComputations, O}};
constexpr AttrRule kFusion[] = {{K::kKind, R}, {K::kOutputToOperandAliasing, O}, {K::kCalls, R}};
constexpr AttrRule kCustomCall[] = {{K::kWindow, O},
                                    {K::kDimLabels, O},
                                    {K::kFeatureGroupCount, O},
                                    {K::kBatchGroupCount, O},
                                    {K::kOperandPrecision, O},
                                    {K::kPaddingType, O},
                                    {K::kCustomCallTarget, R},
                                    {K::kOperandLayoutConstraints, O},
                                    {K::kCustomCallHasSideEffect, O},
                                    {K::kLiteral, O},
                                    {K::kOutputToOperandAliasing, O},
                                    {K::kSchedule, O},
                                    {K::kApiVersion, O},
                                    {K::kCalledComputations, O},
                                    {K::kToApply, O}};
constexpr AttrRule kDot[] = {{K::kLhsBatchDims, O},     {K::kLhsContractingDims, O},
                             {K::kRhsBatchDims, O},     {K::kRhsContractingDims, O},
                             {K::kOperandPrecision, O}, {K::kAlgorithm, O},
                             {K::kSparsity, O}};
constexpr AttrRule kRaggedDot[] = {{K::kLhsBatchDims, O},    {K::kLhsContractingDims, O},
                                   {K::kRhsBatchDims, O},    {K::kRhsContractingDims, O},
                                   {K::kLhsRaggedDims, O},   {K::kRhsGroupDims, O},
                                   {K::kOperandPrecision, O}};
constexpr AttrRule kConvolution[] = {
    {K::kWindow, O},          {K::kDimLabels, R},       {K::kFeatureGroupCount, O},
    {K::kBatchGroupCount, O}, {K::kConvolutionKind, O}, {K::kOperandPrecision, O},
    {K::kAlgorithm, O},       {K::kSparsityConfig, O}};
constexpr AttrRule kGather[] = {
    {K::kOffsetDims, O},          {K::kCollapsedSliceDims, O},       {K::kStartIndexMap, O},
    {K::kOperandBatchingDims, O}, {K::kStartIndicesBatchingDims, O}, {K::kIndexVectorDim, R},
    {K::kSliceSizes, R},          {K::kIndicesAreSorted, O}};
constexpr AttrRule kScatter[] = {{K::kUpdateWindowDims, O},
                                 {K::kInsertedWindowDims, O},
                                 {K::kScatterDimsToOperandDims, O},
                                 {K::kInputBatchingDims, O},
                                 {K::kScatterIndicesBatchingDims, O},
                                 {K::kIndexVectorDim, R},
                                 {K::kIndicesAreSorted, O},
                                 {K::kUniqueIndices, O},
                                 {K::kToApply, R}};
constexpr AttrRule kFft[] = {{K::kFftType, R}, {K::kFftLength, R}};
constexpr AttrRule kTriangularSolve[] = {
    {K::kLeftSide, O}, {K::kLower, O}, {K::kUnitDiagonal, O}, {K::kTransposeA, O}};
constexpr AttrRule kCholesky[] = {{K::kLower, O}};
constexpr AttrRule kRng[] = {{K::kDistribution, R}};
constexpr AttrRule kRngBitGenerator[] = {{K::kAlgorithm, R}};
constexpr AttrRule kReducePrecision[] = {{K::kExponentBits, R}, {K::kMantissaBits, R}};
constexpr AttrRule kBatchNorm[] = {{K::kEpsilon, R}, {K::kFeatureIndex, R}};
constexpr AttrRule kAllReduce[] = {{K::kChannelId, O},
                                   {K::kReplicaGroups, O},
                                   {K::kConstrainLayout, O},
                                   {K::kUseGlobalDeviceIds, O},
                                   {K::kToApply, R}};
constexpr AttrRule kAllGather[] = {{K::kChannelId, O},
                                   {K::kReplicaGroups, O},
                                   {K::kConstrainLayout, O},
                                   {K::kDimensions, R},
                                   {K::kUseGlobalDeviceIds, O}};
constexpr AttrRule kReduceScatter[] = {{K::kChannelId, O},       {K::kReplicaGroups, O},
                                       {K::kConstrainLayout, O}, {K::kUseGlobalDeviceIds, O},
                                       {K::kDimensions, R},      {K::kToApply, R}};
constexpr AttrRule kAllToAll[] = {{K::kChannelId, O},
                                  {K::kReplicaGroups, O},
                                  {K::kConstrainLayout, O},
                                  {K::kDimensions, O},
                                  {K::kUseGlobalDeviceIds, O}};
constexpr AttrRule kCollective[] = {
    {K::kChannelId, O}, {K::kReplicaGroups, O}, {K::kConstrainLayout, O}};
constexpr AttrRule kCollectiveBroadcast[] = {
    {K::kChannelId, O}, {K::kReplicaGroups, O}, {K::kHasDynamicRoot, O}};
constexpr AttrRule kCollectiveReduce[] = {{K::kChannelId, O},
                                          {K::kReplicaGroups, O},
                                          {K::kUseGlobalDeviceIds, O},
                                          {K::kHasDynamicRoot, O},
                                          {K::kToApply, R}};
constexpr AttrRule kReshape[] = {{K::kInferredDimension, O}};
constexpr AttrRule kRngState[] = {{K::kDelta, R}};
constexpr AttrRule kCollectivePermute[] = {
    {K::kChannelId, O}, {K::kSourceTargetPairs, R}, {K::kSliceSizes, O}};
constexpr AttrRule kSendRecv[] = {{K::kChannelId, O}, {K::kIsHostTransfer, O}};
constexpr AttrRule kInfeed[] = {{K::kInfeedConfig, O}};
constexpr AttrRule kOutfeed[] = {{K::kOutfeedShape, O}, {K::kOutfeedConfig, O}};
constexpr AttrRule kAsync[] = {{K::kAsyncExecutionThread, O}, {K::kCalls, O}};
// async-start may also alias its output with its operands (XLA prints that
// between the thread and calls).
constexpr AttrRule kAsyncStart[] = {
    {K::kAsyncExecutionThread, O}, {K::kOutputToOperandAliasing, O}, {K::kCalls, O}};
constexpr AttrRule kCopyStart[] = {{K::kCrossProgramPrefetchIndex, O},
                                   {K::kIsCrossProgramPrefetch, O}};
constexpr AttrRule kDomain[] = {{K::kDomain, R}};
constexpr AttrRule kTopK[] = {{K::kK, R}, {K::kLargest, O}, {K::kIsStable, O}};
constexpr AttrRule kScan[] = {{K::kDimensions, O},
                              {K::kNumCarries, O},
                              {K::kIsReverse, O},
                              {K::kIsAssociative, O},
                              {K::kToApply, R}};

template <size_t N>
absl::Span<const AttrRule> S(const AttrRule (&a)[N]) {
  return absl::MakeConstSpan(a, N);
}

}  // namespace

absl::Span<const AttrRule> OpcodeAttrRules(Opcode op) {
  switch (op) {
    case Opcode::kParameter:
      return S(kParameter);
    case Opcode::kIota:
      return S(kIota);
    case Opcode::kGetTupleElement:
      return S(kGte);
    case Opcode::kCompare:
      return S(kCompare);
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      return S(kDimensions);
    case Opcode::kSlice:
      return S(kSlice);
    case Opcode::kDynamicSlice:
      return S(kDynamicSlice);
    case Opcode::kPad:
      return S(kPad);
    case Opcode::kReduce:
      return S(kReduce);
    case Opcode::kReduceWindow:
      return S(kReduceWindow);
    case Opcode::kSelectAndScatter:
      return S(kSelectAndScatter);
    case Opcode::kMap:
      return S(kMap);
    case Opcode::kSort:
      return S(kSort);
    case Opcode::kCall:
      return S(kCall);
    case Opcode::kWhile:
      return S(kWhile);
    case Opcode::kConditional:
      return S(kConditional);
    case Opcode::kFusion:
      return S(kFusion);
    case Opcode::kCustomCall:
      return S(kCustomCall);
    case Opcode::kDot:
    case Opcode::kScaledDot:
      return S(kDot);
    case Opcode::kRaggedDot:
      return S(kRaggedDot);
    case Opcode::kConvolution:
      return S(kConvolution);
    case Opcode::kGather:
      return S(kGather);
    case Opcode::kScatter:
      return S(kScatter);
    case Opcode::kFft:
      return S(kFft);
    case Opcode::kTriangularSolve:
      return S(kTriangularSolve);
    case Opcode::kCholesky:
      return S(kCholesky);
    case Opcode::kRng:
      return S(kRng);
    case Opcode::kRngBitGenerator:
      return S(kRngBitGenerator);
    case Opcode::kReducePrecision:
      return S(kReducePrecision);
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
      return S(kBatchNorm);
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return S(kAllReduce);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return S(kAllGather);
    case Opcode::kReduceScatter:
      return S(kReduceScatter);
    case Opcode::kAllToAll:
      return S(kAllToAll);
    case Opcode::kRaggedAllToAll:
      return S(kCollective);
    case Opcode::kCollectiveBroadcast:
      return S(kCollectiveBroadcast);
    case Opcode::kCollectiveReduce:
      return S(kCollectiveReduce);
    case Opcode::kReshape:
      return S(kReshape);
    case Opcode::kRngGetAndUpdateState:
      return S(kRngState);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return S(kCollectivePermute);
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      return S(kSendRecv);
    case Opcode::kInfeed:
      return S(kInfeed);
    case Opcode::kOutfeed:
      return S(kOutfeed);
    case Opcode::kAsyncStart:
      return S(kAsyncStart);
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return S(kAsync);
    case Opcode::kCopyStart:
      return S(kCopyStart);
    case Opcode::kDomain:
      return S(kDomain);
    case Opcode::kTopK:
      return S(kTopK);
    case Opcode::kScan:
      return S(kScan);
    default:
      return S(kNone).subspan(0, 0);
  }
}

int CommonAttrRank(AttrKind kind) {
  switch (kind) {
    case K::kSharding:
      return 0;
    case K::kFrontendAttributes:
      return 1;
    case K::kControlPredecessors:
      return 2;
    case K::kStatistics:
      return 3;
    case K::kResultAccuracy:
      return 4;
    case K::kOrigin:
      return 5;
    case K::kMetadata:
      return 6;
    case K::kBackendConfig:
      return 7;
    default:
      return -1;
  }
}

int CanonicalAttrRank(Opcode opcode, AttrKind kind) {
  int common = CommonAttrRank(kind);
  if (common >= 0) return 1000 + common;
  int i = 0;
  for (const AttrRule& r : OpcodeAttrRules(opcode)) {
    if (r.kind == kind) return i;
    ++i;
  }
  return 500;
}

bool IsCommonAttr(AttrKind kind) {
  switch (kind) {
    case K::kMetadata:
    case K::kSharding:
    case K::kFrontendAttributes:
    case K::kBackendConfig:
    case K::kControlPredecessors:
    case K::kStatistics:
    case K::kOrigin:
    case K::kResultAccuracy:
      return true;
    default:
      return false;
  }
}

bool MayHaveSideEffects(Opcode opcode) {
  static const auto* table = [] {
    auto* t = new std::array<bool, kNumOpcodes>();
    for (int i = 0; i < kNumOpcodes; ++i) {
      const auto op = static_cast<Opcode>(i);
      bool calls = false;
      for (const AttrRule& r : OpcodeAttrRules(op)) {
        const AttrType type = AttrValueType(r.kind);
        calls |= type == AttrType::kComputation || type == AttrType::kComputationList;
      }
      (*t)[i] = HasSideEffect(op) || calls;
    }
    return t;
  }();
  return (*table)[static_cast<int>(opcode)];
}

bool IsAllowedAttr(Opcode opcode, AttrKind kind) {
  if (IsCommonAttr(kind)) return true;
  for (const AttrRule& r : OpcodeAttrRules(opcode)) {
    if (r.kind == kind) return true;
  }
  return false;
}

}  // namespace hlo
