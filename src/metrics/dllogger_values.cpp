// The rewrite of a DLLogger line with bare NaN / Infinity (dllogger_values.hpp).
#include "metrics/dllogger_values.hpp"

namespace trainbench::metrics::detail::dllogger {

bool rewrite_non_finite(std::string_view in, std::string& out) {
    out.clear();
    out.reserve(in.size() + 16 + k_padding);
    bool changed = false, in_string = false;
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (in_string) {
            out.push_back(c);
            if (c == '\\' && i + 1 < in.size())
                out.push_back(in[++i]);
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out.push_back(c);
            continue;
        }
        std::string_view rest = in.substr(i);
        std::string_view word;
        if (starts_with(rest, "NaN"))
            word = "NaN";
        else if (starts_with(rest, "-Infinity"))
            word = "-Infinity";
        else if (starts_with(rest, "Infinity"))
            word = "Infinity";
        if (!word.empty()) {
            out.push_back('"');
            out.append(word);
            out.push_back('"');
            i += word.size() - 1;
            changed = true;
            continue;
        }
        out.push_back(c);
    }
    return changed;
}

}  // namespace trainbench::metrics::detail::dllogger
