// A shell word assembled from literal text and references to environment
// variables that the job sets at run time ("${TRAINBENCH_RUN_DIR}"). Literal
// parts are quoted, references are double-quoted expansions, so the word is
// safe whatever the literal text holds.
#pragma once

#include <string>
#include <vector>

namespace trainbench::render {

class ShellWord {
public:
    ShellWord() = default;
    ShellWord(std::string literal) { lit(std::move(literal)); }  // NOLINT: implicit on purpose
    ShellWord(const char* literal) { lit(literal); }             // NOLINT

    ShellWord& lit(std::string text);
    ShellWord& var(std::string name);           // a valid shell identifier
    ShellWord& append(const ShellWord& other);  // other's parts after this word's

    // The word as shell source text.
    [[nodiscard]] std::string shell() const;
    // The word as a human reads it: literals as is, references as ${NAME}.
    [[nodiscard]] std::string plain() const;
    [[nodiscard]] bool empty() const { return m_parts.empty(); }

private:
    struct Part {
        bool is_var = false;
        std::string text;
    };
    std::vector<Part> m_parts;
};

// A ShellWord for "<literal prefix>${VAR}<literal suffix>".
[[nodiscard]] ShellWord word_with_var(const std::string& prefix, const std::string& var,
                                      const std::string& suffix = {});

}  // namespace trainbench::render
