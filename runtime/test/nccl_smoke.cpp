//===- nccl_smoke.cpp - the runtime's collectives over NCCL on GPUs -------===//
//
// mxfp8train-runtime-nccl-smoke [RANKS]: one thread per GPU (RANKS of them,
// default every GPU; 1 on a one-GPU machine) joins an NCCL communicator
// through mxfp8rtCommInitNccl and runs every collective of Collectives.h on
// device buffers, on its own stream: all-gather of fp8 bytes (NaN and -0
// bytes included), f32 all-reduce (sum, in place) and bf16 all-reduce (max),
// f32 reduce-scatter, all-to-all of e8m0 bytes, all-to-allv of i32 with
// uneven and empty parts, and the ABI of lowered code (mxfp8rtShardAllGather
// on the bound communicator), then the MXFP8 expert-parallel exchange on
// device buffers (mxfp8rtMoeDispatchMx and mxfp8rtMoeCombine: the routing
// read back, the row-gather kernels, rows of 66 bytes (K = 64, the byte
// kernel) and 528 bytes (K = 512, the 16-byte kernel)). Every result is
// copied back and compared byte for byte with the value computed on the host
// (sums of small exact values, so NCCL's order does not matter; the
// exchange's rows from an independent reference of its layout). With one
// rank each collective is a copy and the exchange a grouping by expert.
//
// Exit status: 0 when every check passes, 1 on a failure, 77 (skipped) when
// there is no GPU or no libnccl (the message says where it looked).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Collectives.h"
#include "mxfp8train/runtime/ExpertParallel.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex printMutex;
int failures = 0;

void fail(int rank, const std::string &what) {
  std::lock_guard<std::mutex> lock(printMutex);
  std::fprintf(stderr, "rank %d: FAILED: %s (%s)\n", rank, what.c_str(),
               mxfp8rtGetLastError());
  ++failures;
}

#define CHECK_OK(rank, call)                                                   \
  do {                                                                         \
    if ((call) != MXFP8RT_SUCCESS) {                                           \
      fail(rank, #call);                                                       \
      return;                                                                  \
    }                                                                          \
  } while (0)

/// Device copy of `host`, the collective, the result back and compared.
template <typename T> struct DeviceBuffer {
  DeviceBuffer(int rank, size_t count) : rank(rank), count(count) {
    if (count && mxfp8rtMemAlloc(count * sizeof(T), &ptr) != MXFP8RT_SUCCESS)
      fail(rank, "mxfp8rtMemAlloc");
  }
  ~DeviceBuffer() { mxfp8rtMemFree(ptr); }
  void upload(const std::vector<T> &host, mxfp8rtStream stream) {
    if (mxfp8rtMemcpyHtoD(ptr, host.data(), count * sizeof(T), stream) !=
        MXFP8RT_SUCCESS)
      fail(rank, "mxfp8rtMemcpyHtoD");
  }
  void fill(uint8_t byte, mxfp8rtStream stream) {
    if (mxfp8rtMemsetD8(ptr, byte, count * sizeof(T), stream) !=
        MXFP8RT_SUCCESS)
      fail(rank, "mxfp8rtMemsetD8");
  }
  void expect(const std::vector<T> &expected, mxfp8rtStream stream,
              const char *what) {
    std::vector<T> host(count);
    if (mxfp8rtMemcpyDtoH(host.data(), ptr, count * sizeof(T), stream) !=
            MXFP8RT_SUCCESS ||
        mxfp8rtStreamSynchronize(stream) != MXFP8RT_SUCCESS) {
      fail(rank, std::string(what) + ": copy back");
      return;
    }
    if (host.size() != expected.size() ||
        std::memcmp(host.data(), expected.data(), count * sizeof(T)) != 0) {
      size_t i = 0;
      while (i < count && std::memcmp(&host[i], &expected[i], sizeof(T)) == 0)
        ++i;
      fail(rank, std::string(what) + ": bytes differ at element " +
                     std::to_string(i));
    }
  }
  int rank;
  size_t count;
  void *ptr = nullptr;
};

/// Elements rank q sends rank p in the all-to-allv.
intptr_t a2avCount(int q, int p) { return (q + 2 * p) % 3 + (p == q ? 4 : 0); }

/// The expert-parallel exchange of the smoke test: every rank routes its
/// tokens' slots by expertOf, and the reference places each (source,
/// token, slot) row on its destination rank as ExpertParallel.h specifies
/// (grouped by local expert, then source, then the source's order; groups
/// aligned, padding zero).
struct ExchangeReference {
  int ranks;
  intptr_t tokens = 40, topK = 2, alignment = 32, localExperts = 3;
  intptr_t experts() const { return localExperts * ranks; }
  int32_t expertOf(int rank, intptr_t t, intptr_t j) const {
    return int32_t((t * 3 + j * 5 + rank * 7 + t / 5) % experts());
  }
  intptr_t capacity() const {
    return ranks * tokens * topK + localExperts * alignment + 7;
  }
  uint8_t dataByte(int rank, intptr_t t, intptr_t b) const {
    return uint8_t(rank * 41 + t * 13 + b * 7 + 1);
  }
  uint8_t scaleByte(int rank, intptr_t t, intptr_t b) const {
    return uint8_t(110 + (rank * 5 + t * 3 + b) % 30);
  }
  /// row[(s * tokens + t) * topK + j] on rank `dest` (-1: elsewhere), the
  /// group ends of `dest`.
  void layout(int dest, std::vector<intptr_t> &row,
              std::vector<int32_t> &offs) const {
    row.assign(ranks * tokens * topK, -1);
    offs.assign(localExperts, 0);
    intptr_t running = 0;
    for (intptr_t e = 0; e < localExperts; ++e) {
      for (int s = 0; s < ranks; ++s)
        for (intptr_t t = 0; t < tokens; ++t)
          for (intptr_t j = 0; j < topK; ++j)
            if (expertOf(s, t, j) == dest * localExperts + e)
              row[(s * tokens + t) * topK + j] = running++;
      running = (running + alignment - 1) / alignment * alignment;
      offs[e] = int32_t(running);
    }
  }
};

void runExchange(int rank, int ranks, mxfp8rtComm comm, mxfp8rtStream stream,
                 intptr_t k) {
  ExchangeReference ref{ranks};
  intptr_t t = ref.tokens, topK = ref.topK, cap = ref.capacity();
  intptr_t sk = k / 32, el = ref.localExperts;
  std::vector<uint8_t> data(t * k), scales(t * sk);
  std::vector<int32_t> route(t * topK);
  for (intptr_t i = 0; i < t; ++i) {
    for (intptr_t b = 0; b < k; ++b)
      data[i * k + b] = ref.dataByte(rank, i, b);
    for (intptr_t b = 0; b < sk; ++b)
      scales[i * sk + b] = ref.scaleByte(rank, i, b);
    for (intptr_t j = 0; j < topK; ++j)
      route[i * topK + j] = ref.expertOf(rank, i, j);
  }
  std::vector<intptr_t> row;
  std::vector<int32_t> offs;
  ref.layout(rank, row, offs);
  std::vector<uint8_t> wantData(cap * k, 0), wantScales(cap * sk, 0);
  for (int s = 0; s < ranks; ++s)
    for (intptr_t i = 0; i < t; ++i)
      for (intptr_t j = 0; j < topK; ++j) {
        intptr_t r = row[(s * t + i) * topK + j];
        if (r < 0)
          continue;
        for (intptr_t b = 0; b < k; ++b)
          wantData[r * k + b] = ref.dataByte(s, i, b);
        for (intptr_t b = 0; b < sk; ++b)
          wantScales[r * sk + b] = ref.scaleByte(s, i, b);
      }
  std::vector<int32_t> wantCounts(ranks * ranks * el, 0);
  for (int s = 0; s < ranks; ++s)
    for (intptr_t i = 0; i < t; ++i)
      for (intptr_t j = 0; j < topK; ++j)
        ++wantCounts[s * ranks * el + ref.expertOf(s, i, j)];

  std::string what = "K = " + std::to_string(k) + ": ";
  DeviceBuffer<uint8_t> d(rank, t * k), sc(rank, t * sk), rd(rank, cap * k),
      rs(rank, cap * sk);
  DeviceBuffer<int32_t> rt(rank, t * topK), ro(rank, el),
      counts(rank, ranks * ranks * el);
  d.upload(data, stream);
  sc.upload(scales, stream);
  rt.upload(route, stream);
  rd.fill(0xAB, stream);
  rs.fill(0xCD, stream);
  auto dispatch = [&] {
    return mxfp8rtMoeDispatchMx(comm, d.ptr, sc.ptr, t, k, topK,
                                static_cast<const int32_t *>(rt.ptr),
                                ref.experts(), cap, ref.alignment, rd.ptr,
                                rs.ptr, static_cast<int32_t *>(ro.ptr),
                                static_cast<int32_t *>(counts.ptr), stream);
  };
  CHECK_OK(rank, dispatch());
  rd.expect(wantData, stream, (what + "dispatched data").c_str());
  rs.expect(wantScales, stream, (what + "dispatched scales").c_str());
  ro.expect(offs, stream, (what + "dispatched offs").c_str());
  counts.expect(wantCounts, stream, (what + "dispatch counts").c_str());

  // Combine: expert output row r of rank p holds valueOf(p, r, column).
  const intptr_t n = 24;
  auto valueOf = [](int p, intptr_t r, intptr_t c) {
    return uint16_t(0x3C00 + ((p * 7919 + r * 31 + c) & 0x3FF));
  };
  std::vector<uint16_t> expertOut(cap * n);
  for (intptr_t r = 0; r < cap; ++r)
    for (intptr_t c = 0; c < n; ++c)
      expertOut[r * n + c] = valueOf(rank, r, c);
  std::vector<uint16_t> wantOut(t * topK * n);
  for (int p = 0; p < ranks; ++p) {
    std::vector<intptr_t> rowOnP;
    std::vector<int32_t> offsOnP;
    ref.layout(p, rowOnP, offsOnP);
    for (intptr_t i = 0; i < t * topK; ++i) {
      intptr_t r = rowOnP[rank * t * topK + i];
      if (r >= 0)
        for (intptr_t c = 0; c < n; ++c)
          wantOut[i * n + c] = valueOf(p, r, c);
    }
  }
  DeviceBuffer<uint16_t> eo(rank, cap * n), out(rank, t * topK * n);
  eo.upload(expertOut, stream);
  out.fill(0xEE, stream);
  CHECK_OK(rank, mxfp8rtMoeCombine(comm, eo.ptr, n, MXFP8RT_DATA_BF16, t, topK,
                                   static_cast<const int32_t *>(rt.ptr),
                                   ref.experts(),
                                   static_cast<const int32_t *>(counts.ptr),
                                   cap, ref.alignment, out.ptr, stream));
  out.expect(wantOut, stream, (what + "combined rows").c_str());

  // A routing error on rank 0 only fails every rank, before any payload
  // moves; the communicator then still works.
  std::vector<int32_t> bad = route;
  if (rank == 0)
    bad[3] = int32_t(ref.experts());
  rt.upload(bad, stream);
  if (dispatch() != MXFP8RT_INVALID_ARGUMENT)
    fail(rank, what + "rank 0's expert id out of range was not rejected");
  rt.upload(route, stream);
  rd.fill(0xAB, stream);
  CHECK_OK(rank, dispatch());
  rd.expect(wantData, stream,
            (what + "dispatched data after a failed call").c_str());
}

void runRank(int rank, int ranks, const mxfp8rtNcclUniqueId &id) {
  CHECK_OK(rank, mxfp8rtSetDevice(rank));
  mxfp8rtComm comm = nullptr;
  CHECK_OK(rank, mxfp8rtCommInitNccl(ranks, &id, rank, &comm));
  mxfp8rtStream stream = nullptr;
  CHECK_OK(rank, mxfp8rtStreamCreate(&stream));

  // all-gather of fp8 bytes.
  const size_t n = 37;
  auto fp8Of = [](int r, size_t i) -> uint8_t {
    static const uint8_t specials[] = {0x7F, 0xFF, 0x80, 0x00};
    return i < 4 ? specials[i] : uint8_t(i * 7 + r * 13);
  };
  {
    std::vector<uint8_t> mine(n), all;
    for (size_t i = 0; i < n; ++i)
      mine[i] = fp8Of(rank, i);
    for (int r = 0; r < ranks; ++r)
      for (size_t i = 0; i < n; ++i)
        all.push_back(fp8Of(r, i));
    DeviceBuffer<uint8_t> send(rank, n), recv(rank, n * ranks);
    send.upload(mine, stream);
    recv.fill(0xAA, stream);
    CHECK_OK(rank, mxfp8rtAllGather(comm, send.ptr, recv.ptr, n,
                                    MXFP8RT_DATA_BYTE, stream));
    recv.expect(all, stream, "all-gather fp8 bytes");
  }
  // f32 all-reduce (sum, in place) and bf16 all-reduce (max).
  {
    std::vector<float> x(n), sum(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
      x[i] = 0.5f * i + rank;
      for (int r = 0; r < ranks; ++r)
        sum[i] += 0.5f * i + r;
    }
    DeviceBuffer<float> buffer(rank, n);
    buffer.upload(x, stream);
    CHECK_OK(rank,
             mxfp8rtAllReduce(comm, buffer.ptr, buffer.ptr, n, MXFP8RT_DATA_F32,
                              MXFP8RT_REDUCE_SUM, stream));
    buffer.expect(sum, stream, "all-reduce f32 sum in place");

    std::vector<uint16_t> h(n), max(n, 0);
    for (size_t i = 0; i < n; ++i) {
      h[i] = uint16_t(0x3F80 + (i + rank) % 5);
      for (int r = 0; r < ranks; ++r)
        max[i] = std::max<uint16_t>(max[i], uint16_t(0x3F80 + (i + r) % 5));
    }
    DeviceBuffer<uint16_t> send(rank, n), recv(rank, n);
    send.upload(h, stream);
    CHECK_OK(rank,
             mxfp8rtAllReduce(comm, send.ptr, recv.ptr, n, MXFP8RT_DATA_BF16,
                              MXFP8RT_REDUCE_MAX, stream));
    recv.expect(max, stream, "all-reduce bf16 max");
  }
  // f32 reduce-scatter (sum).
  {
    std::vector<float> x(n * ranks), part(n, 0.0f);
    for (size_t j = 0; j < n * ranks; ++j)
      x[j] = float(j) + 0.25f * rank;
    for (size_t i = 0; i < n; ++i)
      for (int r = 0; r < ranks; ++r)
        part[i] += float(rank * n + i) + 0.25f * r;
    DeviceBuffer<float> send(rank, n * ranks), recv(rank, n);
    send.upload(x, stream);
    CHECK_OK(rank,
             mxfp8rtReduceScatter(comm, send.ptr, recv.ptr, n, MXFP8RT_DATA_F32,
                                  MXFP8RT_REDUCE_SUM, stream));
    recv.expect(part, stream, "reduce-scatter f32 sum");
  }
  // all-to-all of e8m0 bytes: byte (sender, receiver, i).
  {
    const size_t k = 3;
    std::vector<uint8_t> send(k * ranks), expected(k * ranks);
    for (int p = 0; p < ranks; ++p)
      for (size_t i = 0; i < k; ++i) {
        send[p * k + i] = uint8_t(100 + 16 * rank + 4 * p + i);
        expected[p * k + i] = uint8_t(100 + 16 * p + 4 * rank + i);
      }
    DeviceBuffer<uint8_t> s(rank, k * ranks), r(rank, k * ranks);
    s.upload(send, stream);
    CHECK_OK(rank,
             mxfp8rtAllToAll(comm, s.ptr, r.ptr, k, MXFP8RT_DATA_BYTE, stream));
    r.expect(expected, stream, "all-to-all e8m0 bytes");
  }
  // all-to-allv of i32 with uneven parts and a one-element gap between the
  // received parts (left as it was).
  {
    std::vector<intptr_t> sendCounts(ranks), sendOffsets(ranks),
        recvCounts(ranks), recvOffsets(ranks);
    intptr_t sendTotal = 0, recvEnd = 0;
    for (int p = 0; p < ranks; ++p) {
      sendCounts[p] = a2avCount(rank, p);
      sendOffsets[p] = sendTotal;
      sendTotal += sendCounts[p];
      recvCounts[p] = a2avCount(p, rank);
      recvOffsets[p] = recvEnd;
      recvEnd += recvCounts[p] + 1;
    }
    std::vector<int32_t> send(sendTotal), expected(recvEnd, -1);
    for (int p = 0; p < ranks; ++p)
      for (intptr_t i = 0; i < sendCounts[p]; ++i)
        send[sendOffsets[p] + i] = 1000 * rank + 10 * p + int32_t(i);
    for (int q = 0; q < ranks; ++q)
      for (intptr_t i = 0; i < recvCounts[q]; ++i)
        expected[recvOffsets[q] + i] = 1000 * q + 10 * rank + int32_t(i);
    DeviceBuffer<int32_t> s(rank, sendTotal), r(rank, recvEnd);
    s.upload(send, stream);
    r.fill(0xFF, stream);
    CHECK_OK(rank,
             mxfp8rtAllToAllv(comm, s.ptr, sendCounts.data(),
                              sendOffsets.data(), r.ptr, recvCounts.data(),
                              recvOffsets.data(), MXFP8RT_DATA_I32, stream));
    r.expect(expected, stream, "all-to-allv i32 uneven");
    // Nothing to send at all.
    std::vector<intptr_t> zeros(ranks, 0);
    CHECK_OK(rank, mxfp8rtAllToAllv(comm, nullptr, zeros.data(), zeros.data(),
                                    nullptr, zeros.data(), zeros.data(),
                                    MXFP8RT_DATA_I32, stream));
  }
  // The ABI of lowered code on the bound communicator.
  {
    CHECK_OK(rank, mxfp8rtCommBind(comm, stream));
    if (mxfp8rtShardProcessIndex(ranks) != rank)
      fail(rank, "mxfp8rtShardProcessIndex");
    std::vector<float> x = {float(rank), -1.5f}, all;
    for (int r = 0; r < ranks; ++r) {
      all.push_back(float(r));
      all.push_back(-1.5f);
    }
    DeviceBuffer<float> send(rank, 2), recv(rank, 2 * ranks);
    send.upload(x, stream);
    if (mxfp8rtShardAllGather(reinterpret_cast<intptr_t>(send.ptr),
                              reinterpret_cast<intptr_t>(recv.ptr), 2,
                              MXFP8RT_DATA_F32, ranks) != MXFP8RT_SUCCESS)
      fail(rank, "mxfp8rtShardAllGather");
    recv.expect(all, stream, "mxfp8rtShardAllGather f32");
    CHECK_OK(rank, mxfp8rtCommBind(nullptr, nullptr));
  }
  // The MXFP8 expert-parallel exchange.
  runExchange(rank, ranks, comm, stream, 64);
  runExchange(rank, ranks, comm, stream, 512);
  CHECK_OK(rank, mxfp8rtStreamSynchronize(stream));
  CHECK_OK(rank, mxfp8rtStreamDestroy(stream));
  CHECK_OK(rank, mxfp8rtCommDestroy(comm));
}

} // namespace

int main(int argc, char **argv) {
  if (mxfp8rtInitialize() != MXFP8RT_SUCCESS) {
    std::printf("nccl smoke: skipped, no GPU: %s\n", mxfp8rtGetLastError());
    return 77;
  }
  int version = 0;
  if (mxfp8rtNcclGetVersion(&version) != MXFP8RT_SUCCESS) {
    std::printf("nccl smoke: skipped: %s\n", mxfp8rtGetLastError());
    return 77;
  }
  int devices = 0;
  if (mxfp8rtGetDeviceCount(&devices) != MXFP8RT_SUCCESS || devices < 1) {
    std::printf("nccl smoke: skipped, no GPU\n");
    return 77;
  }
  int ranks = argc > 1 ? std::atoi(argv[1]) : devices;
  if (ranks < 1 || ranks > devices) {
    std::fprintf(stderr, "nccl smoke: %d ranks asked, %d GPUs\n", ranks,
                 devices);
    return 1;
  }
  std::printf("nccl smoke: NCCL %d from %s, %d rank(s)\n", version,
              mxfp8rtNcclGetLibraryPath(), ranks);
  mxfp8rtNcclUniqueId id;
  if (mxfp8rtNcclGetUniqueId(&id) != MXFP8RT_SUCCESS) {
    std::fprintf(stderr, "nccl smoke: %s\n", mxfp8rtGetLastError());
    return 1;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back(runRank, r, ranks, std::cref(id));
  for (std::thread &t : threads)
    t.join();
  if (failures) {
    std::printf("nccl smoke: %d check(s) FAILED\n", failures);
    return 1;
  }
  std::printf("nccl smoke: OK (all-gather, all-reduce, reduce-scatter, "
              "all-to-all, all-to-allv, shard ABI, MXFP8 dispatch and "
              "combine)\n");
  return 0;
}
