// Values checked against a framework profile's `values:` rules: a command-line word as the
// upstream parser converts it (argparse's int()/float(), nccl-tests' parsesize and strtol),
// and a config value (NeMo) against the type of the upstream default and its enumeration.
#include <trainbench/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace trainbench::catalog {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Digits with single underscores between them (Python's digitpart); advances `i`.
bool digit_part(std::string_view t, std::size_t& i) {
    if (i >= t.size() || !is_digit(t[i])) return false;
    ++i;
    while (i < t.size() && (is_digit(t[i]) || (t[i] == '_' && i + 1 < t.size() && is_digit(t[i + 1])))) ++i;
    return true;
}

// Python's int() of a str: surrounding spaces, an optional sign, a digit part.
bool python_int(std::string_view text) {
    std::string_view t = trim(text);
    std::size_t i = !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    return digit_part(t, i) && i == t.size();
}

bool equals_nocase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Python's float() of a str: digits with an optional fraction and exponent, or inf/infinity/nan.
bool python_float(std::string_view text) {
    std::string_view t = trim(text);
    std::size_t i = !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    std::string_view word = t.substr(i);
    if (equals_nocase(word, "inf") || equals_nocase(word, "infinity") || equals_nocase(word, "nan")) return true;
    bool whole = digit_part(t, i);
    bool fraction = false;
    if (i < t.size() && t[i] == '.') {
        ++i;
        fraction = digit_part(t, i);
    }
    if (!whole && !fraction) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (!digit_part(t, i)) return false;
    }
    return i == t.size();
}

// An integer C's strtol(text, NULL, 0) reads whole: leading spaces, a sign, 0x hex, 0 octal or decimal.
bool c_strtol(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::string_view t = text.substr(i);
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        return std::all_of(t.begin() + 2, t.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!t.empty() && t[0] == '0') return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '7'; });
    return !t.empty() && std::all_of(t.begin(), t.end(), is_digit);
}

// nccl-tests' parsesize: sscanf("%lf %1s"): a C double, then nothing or a K/M/G (any case).
bool nccl_size(std::string_view text) {
    std::string s(text);
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    if (end == s.c_str()) return false;
    std::string_view rest = trim(std::string_view(end));
    return rest.empty() || std::string_view("GgMmKk").find(rest.front()) != std::string_view::npos;
}

std::string article(std::string_view type) {
    return type == "int" ? "an int" : fmt::format("a {}", type);
}

// The text a config value compares with choices: strings as they are, numbers and bools as YAML writes them.
std::string choice_text(const nlohmann::ordered_json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return v.dump();
}

std::optional<ValueProblem> check_choices(const ValueRule& rule, const std::string& text, std::string_view key) {
    if (rule.choices.empty()) return std::nullopt;
    for (const std::string& c : rule.choices)
        if (c == text) return std::nullopt;
    std::string list;
    for (const std::string& c : rule.choices) list += fmt::format("{}'{}'", list.empty() ? "" : ", ", c);
    std::string hint = did_you_mean(text, rule.choices);
    for (const std::string& c : rule.choices)  // RMSNorm for rmsnorm: a case apart, whatever the distance
        if (equals_nocase(c, text)) hint = fmt::format("did you mean '{}'?", c);
    return ValueProblem{fmt::format("'{}' is not one of {}'s choices", text, key), fmt::format("one of {}", list),
                        hint};
}

bool is_placeholder(std::string_view word) {
    return word.find('$') != std::string_view::npos;
}

// The JSON type names a config rule accepts.
bool config_type_fits(const std::string& type, const nlohmann::ordered_json& v) {
    if (type == "int") return v.is_number_integer();
    if (type == "float") return v.is_number();
    if (type == "bool") return v.is_boolean();
    if (type == "str") return v.is_string();
    if (type == "list") return v.is_array();
    if (type == "map") return v.is_object();
    if (type == "any") return !v.is_object();
    return true;  // a type this check does not know
}

std::string config_expected(const ValueRule& rule) {
    static const std::map<std::string, std::string> names = {
        {"int", "an integer"}, {"float", "a number"}, {"bool", "true or false"},     {"str", "a string"},
        {"list", "a list"},    {"map", "a map"},      {"any", "a value (not a map)"}};
    auto it = names.find(rule.type);
    std::string what = it == names.end() ? rule.type : it->second;
    return rule.nullable ? what + " or null" : what;
}

}  // namespace

bool is_python_int(std::string_view text) {
    return python_int(text);
}

bool is_python_float(std::string_view text) {
    return python_float(text);
}

const ValueRule* FrameworkProfile::rule(std::string_view key) const {
    auto it = values.find(std::string(key));
    return it == values.end() ? nullptr : &it->second;
}

std::optional<ValueProblem> FrameworkProfile::check_word(std::string_view key, std::string_view word) const {
    const ValueRule* r = rule(key);
    if (!r || is_placeholder(word)) return std::nullopt;
    std::string text(word);
    const std::string& t = r->type;
    auto bad = [&](const std::string& expected) {
        return ValueProblem{fmt::format("'{}' is not {}", text, article(t)), expected, ""};
    };
    if (t == "int" && !python_int(text)) return bad("an int, argparse type=int");
    if (t == "float" && !python_float(text)) return bad("a float, argparse type=float");
    if (t == "strtol" && !c_strtol(text))
        return ValueProblem{
            fmt::format("'{}' is not an integer: {} is read with strtol(), which would not read it whole", text, key),
            "an integer", ""};
    if (t == "size" && !nccl_size(text))
        return ValueProblem{fmt::format("'{}' is not a size: {} is read with parsesize()", text, key),
                            "a number with an optional K, M or G suffix", ""};
    if (!r->choices.empty() && (t == "int" || t == "float")) {
        // argparse compares the converted value: "08" is choice "8" for type=int
        double x = std::stod(text);
        for (const std::string& c : r->choices)
            if (std::stod(c) == x) return std::nullopt;
    }
    return check_choices(*r, text, key);
}

std::optional<ValueProblem> FrameworkProfile::check_config(std::string_view key,
                                                           const nlohmann::ordered_json& value) const {
    const ValueRule* r = rule(key);
    if (!r) return std::nullopt;
    if (value.is_string() && is_placeholder(value.get<std::string>())) return std::nullopt;  // ${...}, $VAR
    if (value.is_null()) {
        if (r->nullable || r->type == "any") return std::nullopt;
        return ValueProblem{fmt::format("{} cannot be null", key), config_expected(*r), ""};
    }
    if (!config_type_fits(r->type, value)) {
        std::string shown = value.is_string() ? fmt::format("'{}'", value.get<std::string>()) : value.dump();
        return ValueProblem{fmt::format("{} is not {}", shown, config_expected(*r)), config_expected(*r), ""};
    }
    if (value.is_object() || value.is_array()) return std::nullopt;
    return check_choices(*r, choice_text(value), key);
}

}  // namespace trainbench::catalog
