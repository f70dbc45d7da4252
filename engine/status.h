// Errors as values. The engine never prints and never exits: every failure travels back to the
// caller as a Status carrying a category (which app/ maps to an exit code) and a one-line
// message that already names the file, cfg line or layer involved.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace mdfi {

enum class ErrorKind {
  kOk = 0,
  kUsage,         // bad option values handed to the engine
  kIo,            // a file is missing, unreadable or short
  kCfg,           // the cfg text or its network description is wrong
  kWeights,       // the weights file does not fit the cfg
  kImage,         // an input image cannot be decoded or is refused
  kOutOfMemory,   // an allocation failed (real or injected)
  kBudget,        // the predicted peak is over --max-mem
  kUnsupported,   // valid Darknet, but not implemented here
  kInternal,
};

class Status {
 public:
  Status() = default;
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return kind_ == ErrorKind::kOk; }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  ErrorKind kind_ = ErrorKind::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  Result(ErrorKind kind, std::string message) : status_(kind, std::move(message)) {}

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

#define MDFI_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::mdfi::Status _mdfi_st = (expr);         \
    if (!_mdfi_st.ok()) return _mdfi_st;      \
  } while (0)

// `MDFI_ASSIGN_OR_RETURN(int filters, r.require_int("filters"));` declares (or assigns) `filters`
// from a Result, or returns its Status from the enclosing function (which returns a Status or any
// Result). It replaces the two-line `auto x = f(); if (!x.ok()) return x.status();` so a parse
// function reads as the list of keys it takes. Expands to several statements: not for an unbraced if.
#define MDFI_ASSIGN_OR_RETURN(lhs, expr) \
  MDFI_ASSIGN_OR_RETURN_IMPL_(MDFI_STATUS_CONCAT_(_mdfi_result_, __LINE__), lhs, expr)
#define MDFI_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp.value())
#define MDFI_STATUS_CONCAT_(a, b) MDFI_STATUS_CONCAT_INNER_(a, b)
#define MDFI_STATUS_CONCAT_INNER_(a, b) a##b

}  // namespace mdfi
