//===- ProfileReport.cpp - the per-kernel profile of one call -------------===//
//
// Implements ProfileReport.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/ProfileReport.h"

#include "mxfp8train/Support/KernelFamily.h"

#include <cstdio>
#include <map>

using namespace mlir::mxfp8train;

namespace mlir::mxfp8train::launch {

namespace {

std::string format(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

/// "12.3%" of the step, "-" without a step time.
std::string shareOf(double ms, double stepMs) {
  return stepMs > 0 ? format("%.1f%%", 100.0 * ms / stepMs) : "-";
}

/// A JSON string literal.
std::string quote(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// A JSON number with 4 decimals (milliseconds).
std::string number(double value) { return format("%.4f", value); }

} // namespace

bool readProfile(ProfileReport &report, std::string &error) {
  auto failed = [&](mxfp8rtStatus status, const char *what) {
    error = std::string(what) + ": " + mxfp8rtGetLastError() + " (" +
            mxfp8rtGetStatusName(status) + ")";
    return false;
  };
  if (mxfp8rtStatus s = mxfp8rtProfileGetSummary(&report.summary))
    return failed(s, "reading the profile");
  intptr_t count = 0;
  if (mxfp8rtStatus s = mxfp8rtProfileGetKernels(nullptr, 0, &count))
    return failed(s, "reading the profile");
  std::vector<mxfp8rtProfileKernel> kernels(static_cast<size_t>(count));
  if (mxfp8rtStatus s = mxfp8rtProfileGetKernels(kernels.data(), count, &count))
    return failed(s, "reading the profile");
  report.rows.clear();
  std::map<std::string, size_t> familyIndex;
  report.families.clear();
  for (const KernelFamily &family : getKernelFamilies()) {
    familyIndex[family.name] = report.families.size();
    report.families.push_back({family.name, family.description});
  }
  for (const mxfp8rtProfileKernel &kernel : kernels) {
    ProfileRow row;
    row.name = kernel.name;
    row.family = getKernelFamily(row.name);
    row.launches = kernel.launches;
    row.totalMs = kernel.totalMs;
    row.minMs = kernel.minMs;
    row.maxMs = kernel.maxMs;
    ProfileFamily &family = report.families[familyIndex[row.family]];
    family.launches += row.launches;
    family.totalMs += row.totalMs;
    ++family.kernels;
    report.rows.push_back(std::move(row));
  }
  return true;
}

std::vector<std::vector<std::string>>
getFamilyTable(const ProfileReport &report) {
  std::vector<std::vector<std::string>> table;
  table.push_back(
      {"family", "launches", "kernels", "total ms", "share of step", "what"});
  for (const ProfileFamily &family : report.families)
    table.push_back(
        {family.name, std::to_string(family.launches),
         std::to_string(family.kernels), format("%.4f", family.totalMs),
         shareOf(family.totalMs, report.stepMs), family.description});
  double gap = report.stepMs - report.getTimedMs();
  table.push_back({"(none)", "-", "-", format("%.4f", gap),
                   shareOf(gap, report.stepMs),
                   "step time in no timed launch, fill or copy (host work "
                   "between them, gaps)"});
  return table;
}

std::vector<std::vector<std::string>>
getKernelTable(const ProfileReport &report, size_t top) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"#", "kernel", "family", "launches", "total ms", "mean ms",
                   "share of step"});
  for (size_t i = 0; i < report.rows.size() && (top == 0 || i < top); ++i) {
    const ProfileRow &row = report.rows[i];
    double mean = row.launches ? row.totalMs / double(row.launches) : 0.0;
    table.push_back({std::to_string(i + 1), row.name, row.family,
                     std::to_string(row.launches), format("%.4f", row.totalMs),
                     format("%.4f", mean),
                     shareOf(row.totalMs, report.stepMs)});
  }
  return table;
}

std::string describeCounters(const ProfileReport &report) {
  const mxfp8rtProfileSummary &s = report.summary;
  auto n = [](int64_t v) { return std::to_string(v); };
  return "launches " + n(s.launches) + " (untimed " + n(s.untimedLaunches) +
         "); fills " + n(s.memsets) + " (" + n(s.memsetBytes) +
         " bytes); copies " + n(s.memcpys) + " (" + n(s.memcpyBytes) +
         " bytes); allocations " + n(s.allocations) + " (" +
         n(s.allocatedBytes) + " bytes; from the pool " + n(s.poolAllocations) +
         ": " + n(s.poolHits) + " hits, " + n(s.poolMisses) +
         " misses); frees " + n(s.frees) + " (cuMemFree " + n(s.deviceFrees) +
         "); host synchronizations " + n(s.hostSynchronizations);
}

std::string toJson(const ProfileReport &report, const std::string &entry,
                   const std::string &library, double medianMs) {
  const mxfp8rtProfileSummary &s = report.summary;
  std::string json =
      "{\"entry\": " + quote(entry) + ", \"library\": " + quote(library) +
      ", \"median_ms\": " + number(medianMs) +
      ", \"step_ms\": " + number(report.stepMs) +
      ", \"host_ms\": " + number(report.hostMs) +
      ", \"timed_ms\": " + number(report.getTimedMs()) + ", \"families\": [";
  for (size_t i = 0; i < report.families.size(); ++i) {
    const ProfileFamily &f = report.families[i];
    json += std::string(i ? ", " : "") + "{\"family\": " + quote(f.name) +
            ", \"launches\": " + std::to_string(f.launches) +
            ", \"kernels\": " + std::to_string(f.kernels) +
            ", \"total_ms\": " + number(f.totalMs) + "}";
  }
  json += "], \"kernels\": [";
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const ProfileRow &r = report.rows[i];
    double mean = r.launches ? r.totalMs / double(r.launches) : 0.0;
    json += std::string(i ? ", " : "") + "{\"name\": " + quote(r.name) +
            ", \"family\": " + quote(r.family) +
            ", \"launches\": " + std::to_string(r.launches) +
            ", \"total_ms\": " + number(r.totalMs) +
            ", \"mean_ms\": " + number(mean) +
            ", \"min_ms\": " + number(r.minMs) +
            ", \"max_ms\": " + number(r.maxMs) + "}";
  }
  auto field = [](const char *key, int64_t value) {
    return ", \"" + std::string(key) + "\": " + std::to_string(value);
  };
  json += "], \"counters\": {\"launches\": " + std::to_string(s.launches) +
          field("untimed", s.untimedLaunches) + field("memsets", s.memsets) +
          field("memset_bytes", s.memsetBytes) + field("memcpys", s.memcpys) +
          field("memcpy_bytes", s.memcpyBytes) +
          field("allocations", s.allocations) +
          field("allocated_bytes", s.allocatedBytes) +
          field("pool_allocations", s.poolAllocations) +
          field("pool_hits", s.poolHits) + field("pool_misses", s.poolMisses) +
          field("frees", s.frees) + field("device_frees", s.deviceFrees) +
          field("host_synchronizations", s.hostSynchronizations) + "}}";
  return json;
}

} // namespace mlir::mxfp8train::launch
