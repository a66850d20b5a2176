// A regular file's lines are handed out where they lie in a mapping of the file (LineReader
// over FileSource::map): the same lines, numbers, flags and byte counts as the read(2) path
// gives (a MemorySource read in small chunks), k_padding readable bytes after every line, and
// the read(2) path's behaviour for what a mapping cannot show: the lines near a file's end,
// lines over the maximum, a file that grows while it is read and one that shrinks.
#include "metrics/input.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace trainbench::metrics::detail;
using trainbench::testing::TempDir;

namespace {

struct SeenLine {
    std::string text;
    std::uint64_t number = 0;
    bool complete = true, overlong = false;
    bool operator==(const SeenLine&) const = default;
    friend void PrintTo(const SeenLine& l, std::ostream* os) {
        *os << "line " << l.number << (l.complete ? "" : " (incomplete)") << (l.overlong ? " (overlong)" : "") << ": \""
            << l.text.substr(0, 40) << (l.text.size() > 40 ? "...\"" : "\"");
    }
};

struct Seen {
    std::vector<SeenLine> lines;
    std::uint64_t bytes = 0;
    unsigned checksum = 0;  // of every padding byte, so each is read
};

// Every line of `source`, each line's padding read through (a fault if it is not mapped).
Seen read_lines(Source& source, std::size_t max_line, std::size_t stop_after = SIZE_MAX) {
    Seen seen;
    LineReader reader(source, 1 << 12, max_line);
    LineReader::Line line;
    while (seen.lines.size() < stop_after && reader.next(line)) {
        if (!line.overlong) {
            EXPECT_GE(line.capacity, line.text.size() + k_padding) << "line " << line.number;
            for (std::size_t i = line.text.size(); i < line.text.size() + k_padding; ++i)
                seen.checksum += static_cast<unsigned char>(line.text.data()[i]);
        }
        seen.lines.push_back({std::string(line.text), line.number, line.complete, line.overlong});
    }
    seen.bytes = reader.bytes();
    return seen;
}

Seen read_memory(std::string_view data, std::size_t max_line) {
    MemorySource source(data, 777);
    return read_lines(source, max_line);
}

void write(const std::filesystem::path& p, std::string_view data) {
    std::ofstream(p, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
}

// Lines of random length and bytes: empty lines, '\r', kubectl prefixes, long runs.
std::string random_text(std::mt19937_64& rng, std::size_t size) {
    std::string s;
    while (s.size() < size) {
        switch (rng() % 8) {
            case 0:
                s += "\n";
                break;
            case 1:
                s += "[pod/trainer-0/main] iteration 5/ 10 | loss: 1.5 |\n";
                break;
            case 2:
                s += std::string(rng() % 3000, 'x') + "\r\n";
                break;
            default:
                for (std::size_t n = rng() % 200; n > 0; --n) s += static_cast<char>(' ' + rng() % 95);
                s += '\n';
        }
    }
    s.resize(size);
    return s;
}

}  // namespace

TEST(MappedInput, LinesAreTheReadPathsAtEveryKindOfEnd) {
    TempDir dir("mapped");
    std::mt19937_64 rng(37);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t mib = FileSource::k_min_mapped;
    // A size that is a multiple of the page (no zeros after the end), ends near a page's end,
    // just past one; with and without a final '\n'.
    for (std::size_t size : {mib, mib + 16 * page, mib + page - 1, mib + page - 40, mib + page + 1, 3 * mib + 12345}) {
        for (bool final_newline : {true, false}) {
            std::string text = random_text(rng, size);
            text.back() = final_newline ? '\n' : 'y';
            if (!final_newline) text[text.size() - 30] = '\n';  // a short unterminated last line
            const auto path = dir.path() / "log";
            write(path, text);
            FileSource probe(path);
            ASSERT_NE(probe.map().data, nullptr) << "a file of " << size << " bytes is mapped";
            FileSource file(path);
            const Seen mapped = read_lines(file, 1 << 20);
            const Seen read = read_memory(text, 1 << 20);
            ASSERT_EQ(mapped.lines.size(), read.lines.size()) << size;
            for (std::size_t i = 0; i < read.lines.size(); ++i)
                ASSERT_EQ(mapped.lines[i], read.lines[i]) << "size " << size << ", line " << i + 1;
            EXPECT_EQ(mapped.bytes, text.size());
            EXPECT_EQ(read.bytes, text.size());
        }
    }
}

TEST(MappedInput, ALineOverTheMaximumIsDroppedAsTheReadPathDropsIt) {
    TempDir dir("mapped");
    std::mt19937_64 rng(5);
    std::string text = random_text(rng, 1 << 20);
    text.back() = '\n';
    text += std::string(10000, 'z') + "\nafter the long line\n" + std::string(5000, 'q') + "\n";
    text += random_text(rng, 100000) + "\n";
    const auto path = dir.path() / "log";
    write(path, text);
    FileSource file(path);
    const Seen mapped = read_lines(file, 4096);
    const Seen read = read_memory(text, 4096);
    ASSERT_EQ(mapped.lines, read.lines);
    EXPECT_EQ(mapped.bytes, read.bytes);
    std::size_t overlong = 0;
    for (const SeenLine& l : read.lines) overlong += l.overlong;
    EXPECT_GE(overlong, 2u);
}

TEST(MappedInput, APartOfAFileIsItsRangeAlone) {
    TempDir dir("mapped");
    std::mt19937_64 rng(11);
    std::string text = random_text(rng, 5 << 20);
    const auto path = dir.path() / "log";
    write(path, text);
    const std::uint64_t begin = text.find('\n', 1000003) + 1, end = text.find('\n', 3500000) + 1;
    FileSource part(path, begin, end);
    const Seen mapped = read_lines(part, 1 << 20);
    const Seen read = read_memory(std::string_view(text).substr(begin, end - begin), 1 << 20);
    ASSERT_EQ(mapped.lines, read.lines);
    EXPECT_EQ(mapped.bytes, end - begin);
}

TEST(MappedInput, LinesWrittenWhileTheFileIsReadAreRead) {
    TempDir dir("mapped");
    std::mt19937_64 rng(3);
    std::string text = random_text(rng, 2 << 20);
    text.back() = '\n';
    const auto path = dir.path() / "log";
    write(path, text);
    FileSource file(path);
    LineReader reader(file);
    LineReader::Line line;
    std::vector<std::string> lines;
    for (int i = 0; i < 10 && reader.next(line); ++i) lines.emplace_back(line.text);
    const std::string more = "appended 1\nappended 2\nstill being writ";
    std::ofstream(path, std::ios::binary | std::ios::app) << more;
    bool last_complete = true;
    while (reader.next(line)) {
        lines.emplace_back(line.text);
        last_complete = line.complete;
    }
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[lines.size() - 3], "appended 1");
    EXPECT_EQ(lines[lines.size() - 2], "appended 2");
    EXPECT_EQ(lines.back(), "still being writ");
    EXPECT_FALSE(last_complete);
    EXPECT_EQ(reader.bytes(), text.size() + more.size());
}

TEST(MappedInput, AFileCutShortWhileItIsReadEndsWhereItNowEnds) {
    TempDir dir("mapped");
    std::mt19937_64 rng(8);
    std::string text = random_text(rng, 4 << 20);
    text.back() = '\n';
    const auto path = dir.path() / "log";
    write(path, text);
    const std::size_t cut = text.find('\n', 1 << 20) + 1;  // a line end past the first MiB
    FileSource file(path);
    LineReader reader(file);
    LineReader::Line line;
    std::vector<std::string> lines;
    for (int i = 0; i < 10 && reader.next(line); ++i) lines.emplace_back(line.text);
    std::filesystem::resize_file(path, cut);                  // (copytruncate): the mapping's later pages are gone
    while (reader.next(line)) lines.emplace_back(line.text);  // no SIGBUS
    EXPECT_TRUE(file.map_lost());
    const Seen read = read_memory(std::string_view(text).substr(0, cut), 1 << 20);
    ASSERT_EQ(lines.size(), read.lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(lines[i], read.lines[i].text) << i + 1;
}

namespace {

// The resident size in KiB of the mapping that holds `p` (/proc/self/smaps), or -1.
long resident_kib(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
            inside = lo <= at && at < hi;
        } else if (inside && line.rfind("Rss:", 0) == 0) {
            return std::stol(line.substr(4));
        }
    }
    return -1;
}

}  // namespace

TEST(MappedInput, PagesReadAreGivenBackAsTheReaderGoesOn) {
    TempDir dir("mapped");
    std::mt19937_64 rng(21);
    std::string text = random_text(rng, 24 << 20);
    text.back() = '\n';
    const auto path = dir.path() / "log";
    write(path, text);
    FileSource file(path);
    LineReader reader(file);
    LineReader::Line line;
    long most = 0;
    for (std::size_t n = 0; reader.next(line); ++n)
        if (n % 5000 == 0) most = std::max(most, resident_kib(line.text.data()));
    EXPECT_GT(most, 0) << "the lines were read from a mapping";
    EXPECT_LE(most, 4 << 10) << "KiB of a 24 MiB file resident at once";
}
