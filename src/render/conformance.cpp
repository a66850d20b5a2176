// launch_commands() and check_launch(): what each framework receives, checked
// against the profile of the version the recipe names.
#include "render/frameworks/framework.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace trainbench::render {

namespace {

// The location of a recipe key, or of the nearest key above it that has one.
SourceLocation origin(const recipe::Recipe& r, std::string key) {
    while (true) {
        auto it = r.origins.find(key);
        if (it != r.origins.end()) return it->second;
        std::size_t cut = key.find_last_of(".[");
        if (cut == std::string::npos || cut == 0) return SourceLocation{r.file.string(), 0, 0, {}};
        key.resize(cut);
    }
}

// The value of a Hydra override as Hydra's grammar types it: null, true/false (any case), an
// integer, a float, a quoted string, a list [..] or a dict {..} (their items are not parsed),
// else an unquoted string.
nlohmann::ordered_json hydra_value(const std::string& text) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == "null") return nullptr;
    if (lower == "true" || lower == "false") return lower == "true";
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
        return text.substr(1, text.size() - 2);
    if (!text.empty() && text.front() == '[') return nlohmann::ordered_json::array();
    if (!text.empty() && text.front() == '{') return nlohmann::ordered_json::object();
    std::string digits = text;
    digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
    try {
        if (catalog::is_python_int(text)) return std::stoll(digits);
        if (catalog::is_python_float(text)) return std::stod(digits);
    } catch (const std::out_of_range&) {
        return catalog::is_python_int(text) ? nlohmann::ordered_json(0) : nlohmann::ordered_json(0.0);
    }
    return text;
}

bool is_option(const std::string& word) {
    return word.size() > 1 && word[0] == '-' && !(word[1] >= '0' && word[1] <= '9') && word[1] != '.';
}

class Checker {
public:
    Checker(const recipe::Recipe& r, const LaunchCommand& cmd, const catalog::FrameworkProfile& p, Diagnostics& d)
        : m_r(r), m_cmd(cmd), m_p(p), m_d(d) {}

    // NeMo: Hydra overrides onto the delivered config.
    void hydra() {
        for (std::size_t i = 1; i < m_cmd.argv.size(); ++i) {
            const std::string& word = m_cmd.argv[i];
            if (word.rfind("--", 0) == 0) {
                std::string flag = word.substr(0, word.find('='));
                static const std::vector<std::string> hydra_flags = {"--config-path", "--config-name", "--config-dir"};
                if (std::find(hydra_flags.begin(), hydra_flags.end(), flag) == hydra_flags.end())
                    problem(word, fmt::format("'{}' is not a Hydra option of megatron_gpt_pretraining.py", flag),
                            did_you_mean(flag, hydra_flags));
                continue;
            }
            std::size_t skip = word.rfind("++", 0) == 0 ? 2 : (word[0] == '+' || word[0] == '~') ? 1 : 0;
            std::string prefix = word.substr(0, skip);
            std::string key =
                word.substr(skip, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - skip);
            bool in_config = has_config_key(key);
            if (!in_config && !m_p.knows(key)) {
                problem(word, fmt::format("'{}' is not a key of {}", key, m_p.schema), suggestion(key));
            } else if (prefix.empty() && !in_config) {
                problem(word,
                        fmt::format("Hydra refuses '{}': the delivered config has no '{}' to override", word, key),
                        fmt::format("append it: '+{}'", word));
            } else if (prefix == "+" && in_config) {
                problem(word, fmt::format("Hydra refuses '{}': the delivered config already has '{}'", word, key),
                        fmt::format("override it: '{}'", word.substr(1)));
            } else if (prefix == "~" && !in_config) {
                problem(word, fmt::format("Hydra cannot delete '{}': the delivered config has no such key", key), "");
            } else if (std::size_t eq = word.find('='); eq != std::string::npos && prefix != "~") {
                if (auto bad = m_p.check_config(key, hydra_value(word.substr(eq + 1))))
                    problem(word, fmt::format("'{}': {} ({})", word, bad->message, m_p.schema), bad->hint,
                            bad->expected);
            }
        }
    }

    // Megatron-LM, metaseq, nccl-tests: every option exists (with the choices the argv makes).
    void options() {
        std::map<std::string, std::string> chosen;
        for (std::size_t i = 1; i < m_cmd.argv.size(); ++i) {
            const std::string& word = m_cmd.argv[i];
            std::size_t eq = word.find('=');
            std::string flag = word.substr(0, eq);
            if (!m_p.choices.count(flag)) continue;
            if (eq != std::string::npos)
                chosen[flag] = word.substr(eq + 1);
            else if (i + 1 < m_cmd.argv.size())
                chosen[flag] = m_cmd.argv[i + 1];
        }
        for (std::size_t i = 1; i < m_cmd.argv.size(); ++i) {
            const std::string& word = m_cmd.argv[i];
            if (!is_option(word)) continue;
            std::string flag = word.substr(0, word.find('='));
            if (m_p.knows(flag, chosen)) continue;
            std::string with;
            for (const auto& [f, v] : chosen) with += fmt::format("{}{} {}", with.empty() ? " with " : ", ", f, v);
            std::string other = other_choices(flag);
            problem(word, fmt::format("'{}' is not an argument of {}{}", flag, m_p.schema, with),
                    other.empty() ? suggestion(flag) : fmt::format("'{}' comes with {}", flag, other));
        }
        if (!m_p.values.empty()) values();
    }

    // Megatron-Bridge's run_script.py: its options, then what parse_known_args() leaves, each a
    // config override `key=value` (a key the profile lists, a value of its type).
    void options_and_overrides() {
        options();
        for (std::size_t i = 1; i < m_cmd.argv.size(); ++i) {
            const std::string& word = m_cmd.argv[i];
            if (is_option(word) || (i < m_consumed.size() && m_consumed[i])) continue;
            std::size_t eq = word.find('=');
            if (eq == std::string::npos || eq == 0) {
                problem(
                    word,
                    fmt::format("'{}' is neither an argument of {} nor a config override key=value", word, m_p.schema),
                    "", "an option or key=value");
                continue;
            }
            std::string key = word.substr(0, eq);
            if (!m_p.knows(key)) {
                problem(word, fmt::format("'{}' is not a config key {} overrides", key, m_p.schema), suggestion(key),
                        "a config key this version sets");
            } else if (auto bad = m_p.check_config(key, hydra_value(word.substr(eq + 1)))) {
                problem(word, fmt::format("'{}': {} ({})", word, bad->message, m_p.schema), bad->hint, bad->expected);
            }
        }
    }

    // TorchTitan: every key and value of the delivered TOML, if any (the recipe's framework_config
    // keys are validate's, at their own lines), then the `--section.key[=value]` flags, as tyro
    // reads them (a bool is a flag, `--section.no_key` its negation; '-' and '_' alike; `None` for a
    // nullable option).
    void tyro_flags() {
        for (const auto& [key, value] : m_cmd.config_values.items()) {
            if (m_r.framework_config.contains(key)) continue;
            if (!m_p.knows(key)) {
                problem(key, fmt::format("'{}' is not a key of {}", key, m_p.schema), suggestion(key));
            } else if (auto bad = m_p.check_config(key, value)) {
                problem(key, fmt::format("{}: {} ({})", key, bad->message, m_p.schema), bad->hint, bad->expected);
            }
        }
        const std::vector<std::string>& argv = m_cmd.argv;
        for (std::size_t i = 0; i < argv.size(); ++i) {
            const std::string& word = argv[i];
            if (word.rfind("--", 0) != 0) continue;
            const std::size_t eq = word.find('=');
            std::string key = word.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            std::replace(key.begin(), key.end(), '-', '_');
            const std::size_t dot = key.rfind('.');
            bool negated = false;
            if (!m_p.knows(key) && dot != std::string::npos && key.compare(dot + 1, 3, "no_") == 0) {
                std::string plain = key.substr(0, dot + 1) + key.substr(dot + 4);
                const catalog::ValueRule* rule = m_p.rule(plain);
                negated = rule && rule->type == "bool";
                if (negated) key = plain;
            }
            if (!m_p.knows(key)) {
                problem(word,
                        fmt::format("'{}' is not an option of {} (--section.key)", word.substr(0, eq), m_p.schema),
                        suggestion(key));
                continue;
            }
            const catalog::ValueRule* rule = m_p.rule(key);
            if (rule && rule->type == "bool") {
                if (eq != std::string::npos)
                    problem(word, fmt::format("'{}': --{} is a flag and takes no value ({})", word, key, m_p.schema),
                            fmt::format("'--{}' or '--{}'", key, key.substr(0, dot + 1) + "no_" + key.substr(dot + 1)),
                            "the flag alone");
                continue;
            }
            std::string value = eq != std::string::npos ? word.substr(eq + 1) : std::string();
            std::string shown = word;
            if (eq == std::string::npos) {
                if (i + 1 >= argv.size()) {
                    problem(word, fmt::format("--{} needs a value ({})", key, m_p.schema), "", "a value");
                    continue;
                }
                value = shown = argv[++i];
            }
            if (value == "None" && rule && rule->nullable) continue;
            if (auto bad = m_p.check_word(key, value))
                problem(shown, fmt::format("--{} {}: {}", key, value, bad->message), bad->hint, bad->expected);
        }
    }

private:
    // Each option's values, walked as argparse (or getopt_long, for nccl-tests) walks them.
    void values() {
        const std::vector<std::string>& argv = m_cmd.argv;
        for (std::size_t i = 1; i < argv.size(); ++i) {
            const std::string& word = argv[i];
            if (!is_option(word)) continue;
            std::size_t eq = word.find('=');
            bool long_option = word.rfind("--", 0) == 0;
            // a short option of several letters (Megatron-Bridge's -mr, -gb) is one name
            std::string flag = long_option || m_p.rule(word) ? word.substr(0, eq) : word.substr(0, 2);
            const catalog::ValueRule* rule = m_p.rule(flag);
            if (!rule) continue;
            bool attached = long_option ? eq != std::string::npos : word.size() > flag.size();  // --x=v, -b8
            if (!rule->takes_value()) {
                no_value(flag, word, attached, i);
                continue;
            }
            std::vector<std::string> given;
            if (attached)
                given.push_back(long_option ? word.substr(eq + 1) : word.substr(2));
            else
                i = take_values(*rule, flag, i, given);
            if (m_consumed.size() < argv.size()) m_consumed.resize(argv.size());
            for (std::size_t k = i + 1 - (attached ? 1 : given.size()); k <= i; ++k) m_consumed[k] = true;
            for (const std::string& v : given)
                if (auto bad = m_p.check_word(flag, v))
                    problem(attached ? word : v, fmt::format("{} {}: {}", flag, v, bad->message), bad->hint,
                            bad->expected);
        }
    }

    // A flag that takes no value, given one attached or followed by a word no option takes.
    void no_value(const std::string& flag, const std::string& word, bool attached, std::size_t i) {
        const std::vector<std::string>& argv = m_cmd.argv;
        if (attached && !m_p.getopt) {
            problem(word, fmt::format("'{}': {} takes no value ({})", word, flag, m_p.schema), "", "the flag alone");
        } else if (!attached && i + 1 < argv.size() && !is_option(argv[i + 1]) && m_p.positionals.empty()) {
            problem(argv[i + 1],
                    fmt::format("{} takes no value: '{}' after it is {}", flag, argv[i + 1],
                                m_p.getopt ? "ignored (getopt leaves it)" : "an unrecognized argument"),
                    fmt::format("write '{}' alone", flag), "the flag alone");
        }
    }

    // The words after argv[i] that `flag` consumes; returns the index of the last one.
    std::size_t take_values(const catalog::ValueRule& rule, const std::string& flag, std::size_t i,
                            std::vector<std::string>& out) {
        const std::vector<std::string>& argv = m_cmd.argv;
        if (m_p.getopt) {  // required_argument: the next word, whatever it is
            if (i + 1 < argv.size())
                out.push_back(argv[++i]);
            else
                problem(argv[i], fmt::format("{} needs a value ({})", flag, m_p.schema), "", "a value");
            return i;
        }
        const std::string& n = rule.nargs;
        std::size_t want = std::string::npos;  // '*', '+', '?': no fixed count
        if (n.empty())
            want = 1;
        else if (n != "?" && n != "*" && n != "+")
            want = std::stoul(n);
        std::size_t limit = n == "?" ? std::size_t{1} : want;
        while (out.size() < limit && i + 1 < argv.size() && !is_option(argv[i + 1])) out.push_back(argv[++i]);
        bool short_of = (want != std::string::npos && out.size() < want) || (n == "+" && out.empty());
        if (short_of)
            problem(argv[i],
                    fmt::format("{} needs {} value{} ({})", flag, n == "+" ? "at least one" : std::to_string(want),
                                want == 1 ? "" : "s", m_p.schema),
                    "", "a value");
        return i;
    }

    [[nodiscard]] bool has_config_key(const std::string& key) const {
        const std::vector<std::string>& keys = m_cmd.config_keys;
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
        return std::any_of(keys.begin(), keys.end(),
                           [&](const std::string& k) { return k.size() > key.size() && k.rfind(key + ".", 0) == 0; });
    }
    // "--task streaming_language_modeling" when only other choices than the argv's have `flag`.
    [[nodiscard]] std::string other_choices(const std::string& flag) const {
        std::string out;
        for (const auto& [choice_flag, values] : m_p.choices)
            for (const auto& [value, args] : values)
                if (std::binary_search(args.begin(), args.end(), flag))
                    out += fmt::format("{}{} {}", out.empty() ? "" : " or ", choice_flag, value);
        return out;
    }
    std::string suggestion(const std::string& key) {
        if (m_known.empty()) m_known = m_p.all_keys();
        return did_you_mean(key, m_known);
    }
    // Located at the launch.extra_args item when the recipe wrote the word, else at
    // framework_version (trainbench generated it for this version).
    void problem(const std::string& word, const std::string& message, const std::string& hint,
                 const std::string& expected = "an argument this version accepts") {
        const std::vector<std::string>& extra = m_r.launch.extra_args;
        auto it = std::find(extra.begin(), extra.end(), word);
        bool recipe_word = it != extra.end();
        std::string key = recipe_word ? fmt::format("launch.extra_args[{}]", it - extra.begin()) : "framework_version";
        std::string text = recipe_word ? message
                                       : fmt::format(
                                             "{} (trainbench renders it for stage '{}'; a trainbench bug or a "
                                             "profile that misses the key)",
                                             message, m_cmd.stage);
        m_d.error(origin(m_r, key), key, text, recipe_word ? expected : "", hint);
    }

    const recipe::Recipe& m_r;
    const LaunchCommand& m_cmd;
    const catalog::FrameworkProfile& m_p;
    Diagnostics& m_d;
    std::vector<std::string> m_known;
    std::vector<bool> m_consumed;  // argv indexes some option took as its value
};

}  // namespace

std::vector<LaunchCommand> launch_commands(const recipe::Recipe& recipe, const RenderOptions& options) {
    std::vector<LaunchCommand> out;
    for (const recipe::Stage& stage : effective_stages(recipe)) {
        if (!options.stage.empty() && stage.name != options.stage) continue;
        nlohmann::ordered_json c = build_context(recipe, options, stage);
        for (const auto& cmd : c["commands"]) {
            LaunchCommand l;
            l.stage = stage.name;
            l.kind = stage.kind;
            l.program = cmd["program"].get<std::string>();
            l.version = cmd["version"].get<std::string>();
            for (const auto& w : cmd["argv"]) l.argv.push_back(w.get<std::string>());
            l.config_file = cmd["config_file"].get<std::string>();
            for (const auto& k : cmd["config_keys"]) l.config_keys.push_back(k.get<std::string>());
            if (cmd.contains("config_values")) l.config_values = cmd["config_values"];
            out.push_back(std::move(l));
        }
    }
    return out;
}

void check_launch(const recipe::Recipe& recipe, const catalog::Catalog& catalog, Diagnostics& diagnostics) {
    // What the framework version cannot express, each at the recipe key that asks for it.
    const std::vector<ModelProblem> problems = model_support_problems(recipe);
    for (const ModelProblem& p : problems) diagnostics.error(origin(recipe, p.key), p.key, p.message, p.expected);
    if (!problems.empty()) return;
    std::vector<LaunchCommand> commands;
    try {
        commands = launch_commands(recipe, RenderOptions{});
    } catch (const InputError& e) {
        // A recipe the renderer refuses (a setting this framework version lacks, ...).
        diagnostics.error(origin(recipe, recipe.profile ? "framework_version" : "framework"), "render", e.what(), "",
                          e.hint());
        return;
    }
    for (const LaunchCommand& cmd : commands) {
        std::shared_ptr<const catalog::FrameworkProfile> profile;
        if (!cmd.version.empty()) {
            profile = catalog.find_framework(cmd.program, cmd.version);
        } else {
            std::vector<std::string> versions = catalog.framework_versions(cmd.program);
            if (versions.size() == 1) profile = catalog.find_framework(cmd.program, versions.front());
        }
        if (!profile || cmd.argv.empty()) continue;
        Checker check(recipe, cmd, *profile, diagnostics);
        const Framework* framework = find_framework(cmd.program, cmd.version);
        if (framework && framework->hydra)
            check.hydra();
        else if (framework && framework->cli_overrides)
            check.options_and_overrides();
        else if (framework && framework->tyro_flags)
            check.tyro_flags();
        else
            check.options();
    }
}

}  // namespace trainbench::render
