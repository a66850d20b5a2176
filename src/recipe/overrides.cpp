// `-s key=value` overrides: parsed from the command line, applied to the merged recipe tree.
#include "recipe/loading.hpp"

#include <fmt/format.h>

namespace trainbench::recipe {

using yaml::Node;

Override parse_override(std::string_view text) {
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos)
        throw UsageError(fmt::format("override '{}' has no '='", text), "write -s key=value, e.g. -s nodes=2");
    Override o;
    o.key = std::string(text.substr(0, eq));
    o.value = std::string(text.substr(eq + 1));
    o.text = std::string(text);
    // trim spaces around the key
    while (!o.key.empty() && o.key.back() == ' ') o.key.pop_back();
    while (!o.key.empty() && o.key.front() == ' ') o.key.erase(o.key.begin());
    if (o.key.empty()) throw UsageError(fmt::format("override '{}' has an empty key", text), "write -s key=value");
    if (o.key.front() == '.' || o.key.back() == '.' || o.key.find("..") != std::string::npos)
        throw UsageError(fmt::format("override '{}' has a malformed key '{}'", text, o.key),
                         "keys are dotted paths such as parallelism.tensor");
    return o;
}

void apply_override(Node& root, const Override& o, Diagnostics& d) {
    SourceLocation where;
    where.override_text = o.text;
    Node value = yaml::parse_value(o.value, where, d);
    if (value.is_null() && !o.value.empty() && o.value != "null" && o.value != "~") return;  // parse error reported
    std::vector<std::string> parts = split_dots(o.key);
    Node* cur = &root;
    if (!cur->is_map()) *cur = Node::make_map(where);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        Node* next = cur->find(parts[i]);
        if (!next) {
            next = &cur->set(parts[i], Node::make_map(where), where);
        } else if (next->is_scalar() && i == 0 && (parts[i] == "target" || parts[i] == "model")) {
            // `-s target.gpus_per_node=4` on `target: name`: an inline edit of that entry.
            Node edit = Node::make_map(next->where);
            edit.set("base", *next, next->where);
            *next = std::move(edit);
        } else if (next->is_null()) {
            *next = Node::make_map(where);
        } else if (!next->is_map()) {
            std::string prefix;
            for (std::size_t j = 0; j <= i; ++j) prefix = yaml::join_key(prefix, parts[j]);
            d.error(where, o.key, fmt::format("cannot set a key inside '{}', which is {}", prefix, next->describe()),
                    "a dotted path through maps");
            return;
        }
        cur = next;
    }
    Node* existing = cur->find(parts.back());
    if (existing && existing->is_map() && value.is_map())
        yaml::merge(*existing, value);
    else
        cur->set(parts.back(), std::move(value), where);
}

}  // namespace trainbench::recipe
