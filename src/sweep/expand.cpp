// Expanding a sweep into points: overrides per point, one parse of the base,
// exclusion, validation with reasons, names and content hashes (the values these are made
// of: values.cpp).
#include "sweep/values.hpp"

#include <trainbench/sweep.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::sweep {

std::size_t Expansion::valid_count() const {
    return static_cast<std::size_t>(
        std::count_if(points.begin(), points.end(), [](const Point& p) { return p.valid; }));
}
std::size_t Expansion::pruned_count() const {
    return points.size() - valid_count();
}

// ---------------------------------------------------------------- expansion
namespace {

// The name of an excluded point. Moved in from a std::string rather than assigned from
// "-": GCC 12 at -O3 reports a false -Wrestrict in the inlined string replace of the latter
// (GCC bug 105329).
std::string excluded_name() {
    return std::string(1, '-');
}

// A sweep over max_points is refused before anything is loaded.
void check_point_count(const SweepSpec& spec, std::size_t total, const std::string& what) {
    if (total <= spec.max_points) return;
    Diagnostics d;
    SourceLocation where =
        spec.max_points_where.known() ? spec.max_points_where : SourceLocation{spec.file.string(), 1, 1, {}};
    d.error(where, "max_points",
            fmt::format("the sweep has {} points, more than max_points {}",
                        total == static_cast<std::size_t>(-1) ? std::string("too many") : std::to_string(total),
                        spec.max_points),
            fmt::format("at most {} points", spec.max_points),
            "remove axis values, add a zip instead of a matrix, or raise max_points if you mean it");
    d.throw_if_errors(what);
}

// Every key the sweep names (set, axes, exclusions, name template) must exist in the base.
void check_sweep_keys(const SweepSpec& spec, const recipe::Recipe& base, const std::string& what) {
    Diagnostics d;
    for (const auto& [k, v] : spec.set) check_recipe_key(base.resolved, k, v.where, "set." + k, d, false);
    for (const Axis& a : spec.matrix) check_recipe_key(base.resolved, a.key, a.where, "matrix." + a.key, d, false);
    for (const Axis& a : spec.zip) check_recipe_key(base.resolved, a.key, a.where, "zip." + a.key, d, false);
    for (std::size_t i = 0; i < spec.exclude.size(); ++i)
        for (const Condition& c : spec.exclude[i].conditions)
            check_recipe_key(base.resolved, c.key, c.where, fmt::format("exclude[{}].{}", i, c.key), d, true);
    for (const std::string& k : template_keys(spec.name_template)) {
        std::string probe = k;
        if (probe == "gpu") continue;
        check_recipe_key(base.resolved, probe, spec.name_where, "name", d, true);
    }
    d.throw_if_errors(what);
}

// The overrides of point p (set, then zip position z, then matrix indices idx); returns the
// values known before loading, by key.
std::map<std::string, std::string> add_point_overrides(const SweepSpec& spec, Point& p, std::size_t z,
                                                       const std::vector<std::size_t>& idx,
                                                       const std::map<std::string, std::string>& fixed) {
    std::map<std::string, std::string> known = fixed;
    auto add = [&](const std::string& key, const AxisValue& v, bool axis) {
        recipe::Override o;
        o.key = key;
        o.value = v.yaml;
        o.text = fmt::format("sweep point {}: {}={}", p.index, key, v.display);
        p.overrides.push_back(std::move(o));
        if (axis) p.values.push_back({key, v.display});
        known[key] = v.display;
    };
    for (const auto& [k, v] : spec.set) add(k, v, false);
    for (const Axis& a : spec.zip) add(a.key, a.values[z], true);
    for (std::size_t a = 0; a < spec.matrix.size(); ++a) add(spec.matrix[a].key, spec.matrix[a].values[idx[a]], true);
    return known;
}

// Rules whose keys are all known before loading decide now; the others go to `late`.
bool excluded_before_loading(const SweepSpec& spec, std::map<std::string, std::string>& known,
                             std::vector<const ExcludeRule*>& late) {
    for (const ExcludeRule& rule : spec.exclude) {
        bool all_known = std::all_of(rule.conditions.begin(), rule.conditions.end(),
                                     [&](const Condition& c) { return known.count(c.key) != 0; });
        if (!all_known) {
            late.push_back(&rule);
            continue;
        }
        if (std::all_of(rule.conditions.begin(), rule.conditions.end(),
                        [&](const Condition& c) { return condition_holds(c, known[c.key]); }))
            return true;
    }
    return false;
}

// The remaining rules, decided on the loaded recipe.
bool excluded_after_loading(const std::vector<const ExcludeRule*>& late, const recipe::Recipe& r) {
    for (const ExcludeRule* rule : late) {
        if (std::all_of(rule->conditions.begin(), rule->conditions.end(), [&](const Condition& c) {
                auto v = lookup_value(r, c.key);
                return v && condition_holds(c, *v);
            }))
            return true;
    }
    return false;
}

// The point's name in its recipe, as the recipe's own `name:` would be.
void apply_name(const SweepSpec& spec, const std::string& name, recipe::Recipe& r) {
    r.name = name;
    r.resolved["name"] = name;
    r.origins["name"] = spec.name_where;
}

// Names a loaded point and validates its recipe: errors become reasons, warnings warnings.
void name_and_validate(const SweepSpec& spec, Point& p, recipe::Recipe& r) {
    p.name = render_name(spec.name_template, [&](const std::string& key) { return lookup_value(r, key).value_or(""); });
    apply_name(spec, p.name, r);
    Diagnostics v;
    recipe::validate_recipe(r, v);
    p.reasons = format_diagnostics(v, &p.warnings);
    p.loaded = true;
    p.model = r.model_name;
    p.nodes = r.nodes;
    p.gpus = r.total_gpus();
}

// A point whose recipe did not load is named from the values known before loading.
void name_from_known(const SweepSpec& spec, Point& p, const std::map<std::string, std::string>& known) {
    p.name = render_name(spec.name_template, [&](const std::string& key) {
        auto it = known.find(key);
        return it != known.end() ? it->second : std::string("?");
    });
}

// The point's name must be a valid recipe name; a point with no reasons is valid and hashed.
void finish_point(const SweepSpec& spec, Point& p, const recipe::Recipe* r) {
    static const auto name_ok = [](const std::string& s) {
        return !s.empty() && s.size() <= 100 && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9'));
    };
    if (!name_ok(p.name))
        p.reasons.push_back(
            fmt::format("{}: error: key 'name': point name '{}' from template '{}' is not a valid recipe name",
                        spec.name_where.to_string(), p.name, spec.name_template));
    p.valid = p.reasons.empty();
    if (p.valid) p.hash = point_hash(*r);
}

// What expansion shares between its threads: read-only.
struct ExpandContext {
    const SweepSpec& spec;
    const recipe::RecipeSource& source;
    const catalog::Catalog& catalog;
    const std::map<std::string, std::string>& fixed;  // the `set` values
    std::size_t matrix_size = 1;
    const PointVisitor& visit;
};

// One point's outcome, in the slot of its index.
struct Slot {
    Point point;
    bool excluded = false;
    std::exception_ptr error;  // an error that is not the point's (rethrown in index order)
};

// Loads, excludes (late rules), names, validates and visits one point; the recipe ends here.
void load_point(const ExpandContext& c, Slot& slot, const std::map<std::string, std::string>& known,
                const std::vector<const ExcludeRule*>& late, unsigned worker) {
    Point& p = slot.point;
    std::optional<recipe::Recipe> r;
    recipe::LoadOptions lo;
    lo.overrides = p.overrides;
    try {
        r = recipe::load_recipe(c.source, c.catalog, lo);
    } catch (const InputError& e) {
        p.reasons = format_diagnostics(e.diagnostics());
        if (p.reasons.empty()) p.reasons.push_back(e.what());
    }
    if (r && excluded_after_loading(late, *r)) {
        p.name = excluded_name();
        slot.excluded = true;
        return;
    }
    if (r)
        name_and_validate(c.spec, p, *r);
    else
        name_from_known(c.spec, p, known);
    finish_point(c.spec, p, r ? &*r : nullptr);
    if (p.valid && c.visit) c.visit(p, *r, worker);
}

// Point n (0-based): its overrides from the zip position and matrix indices, then excluded or loaded.
void expand_point(const ExpandContext& c, std::size_t n, Slot& slot, unsigned worker) {
    const SweepSpec& spec = c.spec;
    Point& p = slot.point;
    p.index = n + 1;
    std::size_t z = n / c.matrix_size;
    std::size_t rest = n % c.matrix_size;
    std::vector<std::size_t> idx(spec.matrix.size());
    for (std::size_t a = spec.matrix.size(); a-- > 0;) {
        idx[a] = rest % spec.matrix[a].values.size();
        rest /= spec.matrix[a].values.size();
    }
    std::map<std::string, std::string> known = add_point_overrides(spec, p, z, idx, c.fixed);
    std::vector<const ExcludeRule*> late;
    if (excluded_before_loading(spec, known, late)) {
        p.name = excluded_name();
        slot.excluded = true;
        return;
    }
    load_point(c, slot, known, late, worker);
}

// Every slot filled by `threads` threads taking the next index in turn; stops early on an error.
void fill_slots(const ExpandContext& c, std::vector<Slot>& slots, unsigned threads) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&](unsigned worker) {
        for (std::size_t n = next++; n < slots.size() && !failed; n = next++) {
            try {
                expand_point(c, n, slots[n], worker);
            } catch (...) {
                slots[n].error = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (std::thread& th : pool) th.join();
}

// Names of valid points must differ: they name run and render directories.
void check_unique_names(const SweepSpec& spec, const Expansion& out, const std::string& what) {
    std::map<std::string, std::size_t> names;
    for (const Point& p : out.points) {
        if (!p.valid) continue;
        auto [it, inserted] = names.emplace(p.name, p.index);
        if (!inserted) {
            Diagnostics dup;
            std::vector<std::string> keys;
            for (const PointValue& v : p.values) keys.push_back(v.key);
            dup.error(spec.name_where, "name",
                      fmt::format("points {} and {} are both named '{}'", it->second, p.index, p.name),
                      "a name template that tells every point apart",
                      fmt::format("add the varying keys to the template, e.g. {}",
                                  keys.empty() ? std::string("{nodes}") : "{" + keys.back() + "}"));
            dup.throw_if_errors(what);
        }
    }
}

}  // namespace

unsigned expand_threads(std::size_t points) {
    constexpr std::size_t k_points_per_thread = 32;  // fewer points are not worth a second thread
    const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
    return static_cast<unsigned>(std::clamp<std::size_t>(points / k_points_per_thread, 1, cores));
}

Expansion expand(const SweepSpec& spec, const catalog::Catalog& catalog, const ExpandOptions& options) {
    const std::string what = fmt::format("invalid sweep '{}'", spec.file.string());
    std::size_t total = raw_point_count(spec);
    check_point_count(spec, total, what);

    auto source = std::make_shared<const recipe::RecipeSource>(recipe::RecipeSource::read(spec.base));
    // The base alone must load (validation may fail: points can fix it).
    check_sweep_keys(spec, recipe::load_recipe(*source, catalog), what);

    std::map<std::string, std::string> fixed;
    for (const auto& [k, v] : spec.set) fixed[k] = v.display;
    const std::size_t zip_len = spec.zip.empty() ? 1 : std::max<std::size_t>(spec.zip.front().values.size(), 1);
    const std::size_t matrix_size = std::max<std::size_t>(total / zip_len, 1);
    const ExpandContext context{spec, *source, catalog, fixed, matrix_size, options.visit};
    std::vector<Slot> slots(total);
    fill_slots(context, slots,
               static_cast<unsigned>(std::clamp<std::size_t>(options.threads, 1, std::max<std::size_t>(total, 1))));

    Expansion out;
    out.spec = spec;
    out.base = source;
    out.points.reserve(total);
    for (Slot& s : slots) {
        if (s.error) std::rethrow_exception(s.error);
        (s.excluded ? out.excluded : out.points).push_back(std::move(s.point));
    }
    check_unique_names(spec, out, what);
    return out;
}

recipe::Recipe point_recipe(const Expansion& x, const Point& p, const catalog::Catalog& catalog) {
    if (!x.base) throw RuntimeError(fmt::format("sweep point {} has no base recipe", p.index));
    recipe::LoadOptions lo;
    lo.overrides = p.overrides;
    recipe::Recipe r = recipe::load_recipe(*x.base, catalog, lo);
    apply_name(x.spec, p.name, r);
    return r;
}

}  // namespace trainbench::sweep
