// Private to results: the results table's columns, each with how a Result
// field is written to and read back from it, so INSERT and SELECT share one list.
#pragma once

#include "results/database.hpp"

#include <trainbench/results.hpp>

#include <string>
#include <vector>

namespace trainbench::results::detail {

struct Column {
    const char* name;
    Value (*get)(const Result&);
    void (*set)(Result&, const std::optional<std::string>&);
};

[[nodiscard]] const std::vector<Column>& result_columns();
// "a, b, c" and "$1, $2, $3".
[[nodiscard]] std::string column_list();
[[nodiscard]] std::string placeholder_list();

}  // namespace trainbench::results::detail
