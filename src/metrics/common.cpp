#include "metrics/common.hpp"

#include "metrics/spill.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <sys/mman.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace trainbench::metrics::detail {

const std::vector<NameMapping>& canonical_names() {
    static const std::vector<NameMapping> table = {
        // NeMo / Lightning (DLLogger data keys, TensorBoard tags, progress lines)
        {"train_step_timing in s", names::step_time_s},
        {"train_step_timing", names::step_time_s},
        {"reduced_train_loss", names::loss},
        {"lr", names::learning_rate},
        {"consumed_samples", names::consumed_samples},
        {"grad_norm", names::grad_norm},
        {"global_batch_size", names::global_batch},
        {"TFLOPS_per_GPU", names::tflops_per_gpu},
        // Megatron-LM stdout keys
        {"consumed samples", names::consumed_samples},
        {"learning rate", names::learning_rate},
        {"global batch size", names::global_batch},
        {"lm loss", names::loss},
        {"loss scale", names::loss_scale},
        {"grad norm", names::grad_norm},
        {"number of skipped iterations", names::skipped_iterations},
        {"throughput per GPU (TFLOP/s/GPU)", names::tflops_per_gpu},
        {"samples per second", names::samples_per_s},
        // Megatron-LM TensorBoard tags (iteration-time is in seconds)
        {"iteration-time", names::step_time_s},
        {"learning-rate", names::learning_rate},
        {"loss-scale", names::loss_scale},
        {"grad-norm", names::grad_norm},
        {"batch-size", names::global_batch},
        {"throughput", names::tflops_per_gpu},
        // fairseq / metaseq
        {"wps", names::tokens_per_s},
        {"loss", names::loss},
        {"gnorm", names::grad_norm},
        {"loss_scale", names::loss_scale},
        {"bsz", names::global_batch},
    };
    return table;
}

void insert_point(Series& series, const Point& p) {
    if (p.step < series.keep_from || p.step > series.keep_to) return;
    auto& v = series.points;
    if (series.last_only && !v.empty()) {
        if (v.back().step <= p.step) v.back() = p;
        return;
    }
    if (series.spill) {
        if (v.size() >= series.spill->limit()) series.spill->move_out(v);
        if (series.spill->covers(p.step)) {
            series.spill->add_late(p);
            return;
        }
    }
    if (v.empty() || v.back().step < p.step) {
        v.push_back(p);
        return;
    }
    if (v.back().step == p.step) {
        v.back() = p;
        return;
    }
    auto it =
        std::lower_bound(v.begin(), v.end(), p.step, [](const Point& a, std::int64_t step) { return a.step < step; });
    if (it != v.end() && it->step == p.step)
        *it = p;
    else
        v.insert(it, p);
}

SeriesSink::SeriesSink(LogData& out, const ParseOptions& options, const std::vector<NameMapping>& mapping)
    : m_out(out), m_options(options), m_mapping(mapping) {}

bool SeriesSink::selected(std::string_view name, std::string_view source_name) const {
    if (m_options.tags.empty()) return true;
    return std::any_of(m_options.tags.begin(), m_options.tags.end(),
                       [&](const std::string& t) { return t == name || t == source_name; });
}

Series* SeriesSink::create(std::string_view name, std::string_view source_name) {
    if (!selected(name, source_name)) return nullptr;
    auto it = m_out.series.find(std::string(name));
    if (it == m_out.series.end()) {
        Series s;
        s.name = std::string(name);
        s.source_name = std::string(source_name);
        auto named = [&](const std::vector<std::string>& names) {
            return std::any_of(names.begin(), names.end(),
                               [&](const std::string& t) { return t == name || t == source_name; });
        };
        s.last_only = named(m_options.last_only);
        if (named(m_options.window_only)) {
            s.keep_from = m_options.window_from;
            s.keep_to = m_options.window_to;
        }
        if (m_options.spill_after > 0 && !s.last_only)
            s.spill = std::make_shared<PointSpill>(m_options.spill_after, s.name);
        it = m_out.series.emplace(s.name, std::move(s)).first;
    }
    return &it->second;
}

std::uint64_t delimiter_mask(const char* p, std::size_t n, char a, char b) {
#ifdef __SSE2__
    if (n >= 64) {
        const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
        std::uint64_t m = 0;
        for (int i = 0; i < 4; ++i) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
            const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb));
            m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(hit))) << (16 * i);
        }
        return m;
    }
    if (n > 0) {  // the line's last bytes, in a copy (no read past the string)
        alignas(16) char tail[64] = {};
        std::memcpy(tail, p, n);
        return delimiter_mask(tail, 64, a, b) & ((std::uint64_t{1} << n) - 1);
    }
    return 0;
#else
    return delimiter_mask_bytes(p, n, a, b);
#endif
}

Series* SeriesSink::resolve_slow(std::string_view source_name) {
    if (m_last < m_cache.size() && same_name(m_cache[m_last].source, source_name)) return m_cache[m_last].series;
    for (std::size_t i = 0; i < m_cache.size(); ++i) {
        if (m_cache[i].source == source_name) {
            m_last = i;
            return m_cache[i].series;
        }
    }
    std::string_view name = source_name;
    for (const NameMapping& m : m_mapping) {
        if (m.source == source_name) {
            // The first source of a canonical series keeps it; another source
            // with the same meaning keeps its own name.
            auto existing = m_out.series.find(std::string(m.canonical));
            if (existing == m_out.series.end() || existing->second.source_name == source_name) name = m.canonical;
            break;
        }
    }
    Series* s = create(name, source_name);
    m_cache.push_back({std::string(source_name), s});
    m_last = m_cache.size() - 1;
    return s;
}

Series* SeriesSink::resolve_as(std::string_view name, std::string_view source_name) {
    // Keyed by `name` alone, apart from resolve()'s source names; a parser asks for the same
    // few names in the same order on every line: the one after the last hit is tried first.
    const std::size_t n = m_as.size();
    for (std::size_t k = 0, i = m_as_next; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
        if (same_name(m_as[i].source, name)) {
            m_as_next = i + 1 == n ? 0 : i + 1;
            return m_as[i].series;
        }
    }
    Series* s = create(name, source_name);
    m_as.push_back({std::string(name), s});
    return s;
}

void SeriesSink::commit() {
    for (auto& [s, p] : m_staged) insert_point(*s, p);
    m_staged.clear();
}

void SeriesSink::commit_with_wall(double wall) {
    for (auto& [s, p] : m_staged) {
        if (std::isnan(p.wall_time)) p.wall_time = wall;
        insert_point(*s, p);
    }
    m_staged.clear();
}

namespace {

// Large series are filled front to back once: transparent huge pages (where the
// system allows them on request) take 512 times fewer page faults to do it.
void advise_huge_pages(const void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t k_huge = 2u << 20;
    if (bytes < 2 * k_huge) return;
    auto begin = (reinterpret_cast<std::uintptr_t>(data) + k_huge - 1) & ~(k_huge - 1);
    auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(k_huge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace

SeriesReserver::SeriesReserver(LogData& out, std::uint64_t size_hint) : m_out(out), m_size(size_hint) {
    for (const auto& [name, s] : out.series) m_initial[name] = s.points.size();
}

void SeriesReserver::reserve(std::uint64_t bytes_done) {
    m_done = true;
    if (m_size < bytes_done * 2) return;
    double scale = static_cast<double>(m_size) / static_cast<double>(bytes_done);
    for (auto& [name, s] : m_out.series) {
        if (s.spill) continue;  // holds a bounded number of points
        auto it = m_initial.find(name);
        std::size_t before = it == m_initial.end() ? 0 : it->second;
        std::size_t grown = s.points.size() - std::min(before, s.points.size());
        auto want = s.points.size() + static_cast<std::size_t>(static_cast<double>(grown) * (scale - 1) * 1.05) + 16;
        if (want > s.points.capacity()) {
            s.points.reserve(want);
            advise_huge_pages(s.points.data(), s.points.capacity() * sizeof(Point));
        }
    }
}

void warn(ParseStats& stats, std::string message) {
    if (stats.warnings.size() < k_max_warnings) stats.warnings.push_back(std::move(message));
}

namespace {

// The plain decimals logs are made of ("7.12345", "-1.5E-06", "2347"), read exactly as
// from_chars reads them, or nullptr for anything else (from_chars then reads it): at most 19
// significant digits whose value is below 2^53 and a power of ten up to 22 are both exact
// doubles, so one multiplication or division rounds once, correctly (Clinger's fast path).
const char* plain_decimal(const char* p, const char* last, double& value) {
    static constexpr std::array<double, 23> k_pow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    auto is_digit = [](char c) { return static_cast<unsigned char>(c - '0') < 10; };
    const bool negative = p < last && *p == '-';
    if (negative) ++p;
    // The digits after leading zeros (of the integer part, and of the fraction where the integer
    // part is zero) are the significant ones; more than 19 may have wrapped `mantissa` around,
    // and are refused below.
    std::uint64_t mantissa = 0;
    int exponent = 0;
    const char* const start = p;
    while (p < last && *p == '0') ++p;
    const char* significant_from = p;
    while (p < last && is_digit(*p)) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p++ - '0');
    if (p == start) return nullptr;
    std::ptrdiff_t significant = p - significant_from;
    if (p < last && *p == '.') {
        const char* fraction = ++p;
        if (significant == 0)
            while (p < last && *p == '0') ++p;
        significant_from = p;
        while (p < last && is_digit(*p)) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p++ - '0');
        if (p == fraction) return nullptr;
        significant += p - significant_from;
        exponent -= static_cast<int>(p - fraction);
    }
    if (p < last && (*p == 'e' || *p == 'E')) {
        ++p;
        const bool minus = p < last && *p == '-';
        if (p < last && (*p == '-' || *p == '+')) ++p;
        const char* digits = p;
        int e = 0;
        while (p < last && is_digit(*p) && p - digits < 4) e = e * 10 + (*p++ - '0');
        if (p == digits) return nullptr;
        exponent += minus ? -e : e;
    }
    if (p < last && (is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E')) return nullptr;
    if (significant > 19 || mantissa > (std::uint64_t{1} << 53) || exponent < -22 || exponent > 22) return nullptr;
    const auto m = static_cast<double>(mantissa);
    const double v = exponent < 0 ? m / k_pow10[static_cast<std::size_t>(-exponent)]
                                  : m * k_pow10[static_cast<std::size_t>(exponent)];
    value = negative ? -v : v;
    return p;
}

// from_chars for doubles, also accepting a leading '+'. Returns the end of the number.
const char* scan_double(const char* first, const char* last, double& value) {
    const char* p = first;
    bool plus = false;
    if (p < last && *p == '+') {
        plus = true;
        ++p;
    }
    if (const char* end = plain_decimal(p, last, value)) return plus && *p == '-' ? first : end;
    auto [end, ec] = std::from_chars(p, last, value);
    if (ec == std::errc::result_out_of_range) {
        // Overflow: from_chars leaves value untouched; report +-inf / 0 like strtod.
        bool neg = (p < last && *p == '-');
        value = neg ? -HUGE_VAL : HUGE_VAL;
        for (const char* q = p; q < end; ++q)
            if (*q == 'e' || *q == 'E') {
                if (q + 1 < end && q[1] == '-') value = neg ? -0.0 : 0.0;
                break;
            }
        return end;
    }
    if (ec != std::errc()) return first;
    if (plus && (*p == '-')) return first;
    return end;
}

}  // namespace

std::optional<double> to_number(std::string_view s) {
    s = trim(s);
    if (s.empty()) return std::nullopt;
    double v = 0;
    const char* end = scan_double(s.data(), s.data() + s.size(), v);
    if (end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<double> leading_number(std::string_view s) {
    double v = 0;
    if (leading_number_length(s, v) == 0) return std::nullopt;
    return v;
}

const char* scan_number(const char* first, const char* last, double& value) {
    return scan_double(first, last, value);
}

std::size_t leading_number_length(std::string_view s, double& value) {
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    const char* first = s.data() + i;
    const char* end = scan_double(first, s.data() + s.size(), value);
    return end == first ? 0 : static_cast<std::size_t>(end - s.data());
}

std::optional<std::int64_t> to_integer(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> integral(double v) {
    if (!std::isfinite(v) || v < -9.2e18 || v > 9.2e18) return std::nullopt;
    double r = std::nearbyint(v);
    if (r != v) return std::nullopt;
    return static_cast<std::int64_t>(r);
}

namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        char c = s[pos + i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

namespace {

// The date, hour and minute of "YYYY-MM-DD HH:MM:SS..." (at least 19 characters) as Unix
// seconds in `base`; false where they are not one.
bool datetime_minute(std::string_view s, double& base) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0;
    if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
        !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' ||
        !digits(s, 14, 2, mi))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return false;
    base = static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                               h * 3600 + mi * 60);
    return true;
}

// The rest of it (":SS[.ffffff][+HH:MM]") on that minute.
std::optional<double> datetime_rest(std::string_view s, double base) {
    int se = 0;
    if (s[16] != ':' || !digits(s, 17, 2, se) || se > 60) return std::nullopt;
    double t = base + se;
    std::size_t pos = 19;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
        double scale = 0.1;
        ++pos;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
            t += (s[pos] - '0') * scale;
            scale /= 10;
            ++pos;
        }
    }
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
        int oh = 0, om = 0;
        bool neg = s[pos] == '-';
        if (digits(s, pos + 1, 2, oh)) {
            std::size_t p = pos + 3;
            if (p < s.size() && s[p] == ':') ++p;
            if (!digits(s, p, 2, om)) om = 0;
            double off = oh * 3600.0 + om * 60.0;
            t += neg ? off : -off;
        }
    }
    return t;
}

}  // namespace

std::optional<double> parse_datetime(std::string_view s) {
    double base = 0;
    if (!datetime_minute(s, base)) return std::nullopt;
    return datetime_rest(s, base);
}

std::optional<double> DatetimeReader::read(std::string_view s) {
    auto same_minute = [&] {  // the 16 characters "YYYY-MM-DD HH:MM" as two 8-byte words
        std::uint64_t a[2], b[2];
        std::memcpy(a, s.data(), 16);
        std::memcpy(b, m_minute.data(), 16);
        return a[0] == b[0] && a[1] == b[1];
    };
    if (m_known && s.size() >= 19 && same_minute()) return datetime_rest(s, m_base);
    double base = 0;
    if (!datetime_minute(s, base)) return std::nullopt;
    std::memcpy(m_minute.data(), s.data(), m_minute.size());
    m_known = true;
    m_base = base;
    return datetime_rest(s, base);
}

void strip_ansi(std::string_view in, std::string& out) {
    out.clear();
    std::size_t i = 0;
    while (i < in.size()) {
        // The text up to the next ESC in one append (a coloured line is mostly text).
        const void* esc = std::memchr(in.data() + i, '\x1b', in.size() - i);
        const std::size_t next = esc ? static_cast<std::size_t>(static_cast<const char*>(esc) - in.data()) : in.size();
        out.append(in.data() + i, next - i);
        i = next;
        if (i >= in.size()) break;
        ++i;
        if (i < in.size() && in[i] == '[') {
            ++i;
            while (i < in.size() && !((in[i] >= '@' && in[i] <= '~') && in[i] != '[')) ++i;
            if (i < in.size()) ++i;
        } else if (i < in.size()) {
            ++i;
        }
    }
}

}  // namespace trainbench::metrics::detail
