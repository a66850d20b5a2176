// Pipeline stages: Megatron-Core's --pipeline-model-parallel-layout and the even split.
// The layout grammar is the one its help text gives (Megatron-LM d98e8a64
// megatron/training/arguments.py, --pipeline-model-parallel-layout): "E, L, t, m denotes
// embedding, loss, transformer decoder layer, and mtp layer, respectively. Stages are split by
// "|". Replicated stages or layers can be described with multiplication. Commas can be used
// cosmetically." Parentheses group what a multiplication repeats ("(tttt|)*14").
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace trainbench::recipe {

namespace {

constexpr std::size_t k_max_expanded = 1 << 16;  // symbols after expansion (a hostile "*99999" stops here)

class LayoutParser {
public:
    explicit LayoutParser(std::string_view text) : m_text(text) {}

    std::optional<std::string> parse(std::string& problem) {
        std::string out;
        if (!sequence(out, 0) || m_pos != m_text.size()) {
            problem = m_problem.empty() ? fmt::format("unexpected '{}' at character {}", m_text[m_pos], m_pos + 1)
                                        : m_problem;
            return std::nullopt;
        }
        return out;
    }

private:
    void skip() {
        while (m_pos < m_text.size() && (m_text[m_pos] == ',' || m_text[m_pos] == ' ')) ++m_pos;
    }
    bool fail(std::string why) {
        if (m_problem.empty()) m_problem = std::move(why);
        return false;
    }
    // An optional "*N" after an item: how often it repeats.
    bool repeat(std::size_t& count) {
        count = 1;
        skip();
        if (m_pos >= m_text.size() || m_text[m_pos] != '*') return true;
        ++m_pos;
        std::size_t start = m_pos, n = 0;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])) != 0) {
            n = n * 10 + static_cast<std::size_t>(m_text[m_pos] - '0');
            if (n > k_max_expanded) return fail("a repetition larger than the layout can be");
            ++m_pos;
        }
        if (m_pos == start) return fail(fmt::format("'*' without a count at character {}", start));
        count = n;
        return true;
    }
    bool append(std::string& out, const std::string& item, std::size_t count) {
        if (out.size() + item.size() * count > k_max_expanded) return fail("the layout expands beyond 65536 symbols");
        for (std::size_t i = 0; i < count; ++i) out += item;
        return true;
    }
    bool sequence(std::string& out, int depth) {
        if (depth > 16) return fail("parentheses nested deeper than 16");
        for (skip(); m_pos < m_text.size(); skip()) {
            char c = m_text[m_pos];
            std::string item;
            if (c == ')') return true;
            if (c == '(') {
                ++m_pos;
                if (!sequence(item, depth + 1)) return false;
                if (m_pos >= m_text.size() || m_text[m_pos] != ')') return fail("a '(' without its ')'");
                ++m_pos;
            } else if (c == 'E' || c == 'L' || c == 't' || c == 'm' || c == '|') {
                item = std::string(1, c);
                ++m_pos;
            } else {
                return fail(fmt::format("'{}' at character {} is not one of E, L, t, m, '|', '(', ')', '*', ','", c,
                                        m_pos + 1));
            }
            std::size_t count = 1;
            if (!repeat(count) || !append(out, item, count)) return false;
        }
        return true;
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::string m_problem;
};

}  // namespace

std::optional<std::vector<std::string>> expand_pipeline_layout(std::string_view layout, std::string& problem) {
    LayoutParser parser(layout);
    std::optional<std::string> flat = parser.parse(problem);
    if (!flat) return std::nullopt;
    std::vector<std::string> stages{std::string()};
    for (char c : *flat) {
        if (c == '|')
            stages.emplace_back();
        else
            stages.back() += c;
    }
    return stages;
}

std::vector<PipelineStage> pipeline_stages(const Recipe& r) {
    const int p = std::max(1, r.parallelism.pipeline);
    const int v = std::max(1, r.parallelism.virtual_pipeline);
    std::vector<PipelineStage> out;
    if (!r.parallelism.pipeline_layout.empty()) {
        std::string problem;
        auto stages = expand_pipeline_layout(r.parallelism.pipeline_layout, problem);
        if (!stages) return {};
        int layer = 0;
        for (const std::string& s : *stages) {
            PipelineStage st;
            st.first_layer = layer;
            st.layers = static_cast<int>(std::count(s.begin(), s.end(), 't'));
            st.mtp = static_cast<int>(std::count(s.begin(), s.end(), 'm'));
            st.embedding = s.find('E') != std::string::npos;
            st.loss = s.find('L') != std::string::npos;
            layer += st.layers;
            out.push_back(st);
        }
        return out;
    }
    const int count = p * v;
    const int layers = std::max(0, r.model.layers);
    for (int j = 0; j < count; ++j) {
        PipelineStage st;
        st.first_layer = layers * j / count;
        st.layers = layers * (j + 1) / count - st.first_layer;
        st.embedding = j == 0;
        st.loss = j == count - 1;
        st.mtp = j == count - 1 ? r.model.mtp_layers : 0;  // Megatron-Core puts MTP in the last stage
        out.push_back(st);
    }
    return out;
}

void validate_pipeline_layout(const Recipe& r, Diagnostics& d) {
    const Parallelism& par = r.parallelism;
    if (par.pipeline_layout.empty()) return;
    const SourceLocation where = origin_of(r, "parallelism.pipeline_layout");
    const std::string key = "parallelism.pipeline_layout";
    if (!framework_kind(r).megatron_arguments) {
        d.error(where, key, fmt::format("framework '{}' has no pipeline layout", r.framework),
                "a layout only with framework megatron-lm (--pipeline-model-parallel-layout)");
        return;
    }
    std::string problem;
    auto stages = expand_pipeline_layout(par.pipeline_layout, problem);
    if (!stages) {
        d.error(where, key, fmt::format("'{}' is not a pipeline layout: {}", par.pipeline_layout, problem),
                "stages of E, t, m, L split by '|', with (...)*N repeats, e.g. \"Et*4|(tttt|)*14tmL\"");
        return;
    }
    const int want = std::max(1, par.pipeline) * std::max(1, par.virtual_pipeline);
    const int count = static_cast<int>(stages->size());
    if (count != want)
        d.error(where, key,
                fmt::format("the layout has {} stages, pipeline {} x virtual_pipeline {} needs {}", count, par.pipeline,
                            std::max(1, par.virtual_pipeline), want),
                fmt::format("{} stages split by '|'", want));
    int layers = 0, embeddings = 0, losses = 0, mtp = 0;
    for (int i = 0; i < count; ++i) {
        const std::string& s = (*stages)[static_cast<std::size_t>(i)];
        layers += static_cast<int>(std::count(s.begin(), s.end(), 't'));
        mtp += static_cast<int>(std::count(s.begin(), s.end(), 'm'));
        int e = static_cast<int>(std::count(s.begin(), s.end(), 'E'));
        int l = static_cast<int>(std::count(s.begin(), s.end(), 'L'));
        embeddings += e;
        losses += l;
        if ((e > 0 && i != 0) || (l > 0 && i != count - 1))
            d.error(where, key, fmt::format("stage {} holds the {}", i, e > 0 ? "embedding (E)" : "loss (L)"),
                    "the embedding in the first stage and the loss in the last");
    }
    if (embeddings != 1 || losses != 1)
        d.error(where, key, fmt::format("the layout has {} embedding(s) and {} loss(es)", embeddings, losses),
                "one E (in the first stage) and one L (in the last)");
    if (r.model.layers > 0 && layers != r.model.layers)
        d.error(where, key,
                fmt::format("the layout places {} decoder layers (t), model '{}' has {}", layers, r.model.name,
                            r.model.layers),
                fmt::format("{} t in all", r.model.layers));
    if (mtp != r.model.mtp_layers)
        d.error(where, key,
                fmt::format("the layout places {} MTP layers (m), model '{}' has {}", mtp, r.model.name,
                            r.model.mtp_layers),
                fmt::format("{} m in all", r.model.mtp_layers));
}

}  // namespace trainbench::recipe
