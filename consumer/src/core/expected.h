// SPDX-License-Identifier: Apache-2.0
// Errors as values: every fallible step of the consumer returns Expected<T>, and main turns an
// error into one line on stderr and a non-zero exit (no exceptions cross module boundaries).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace vtscope {

struct Error {
    std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : state_(std::move(value)) {}
    Expected(Error error) : state_(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<T>(state_); }
    const T& value() const { return std::get<T>(state_); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() { return value(); }
    const Error& error() const { return std::get<Error>(state_); }

private:
    std::variant<T, Error> state_;
};

struct Unit {};
using Status = Expected<Unit>;
inline Status ok_status() { return Unit{}; }

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace vtscope
