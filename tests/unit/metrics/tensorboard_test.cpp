// TensorBoard event files written by the tests' own encoder: CRC-32C, framing,
// scalar encodings, directories and restarts, corruption and truncation.
#include "test_support.hpp"

#include <cmath>
#include <random>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;
using trainbench::metrics::detail::crc32c;
using trainbench::metrics::detail::crc32c_portable;
using trainbench::metrics::detail::masked_crc32c;

TEST(Crc32c, MatchesPublishedTestVectors) {
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
    std::string zeros(32, '\0');
    EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
    std::string rust = std::string("\x1a\x11", 2) + "CRC test, one two";
    EXPECT_EQ(masked_crc32c(rust.data(), rust.size()), 0x5794D08Au);
    std::string len24("\x18\0\0\0\0\0\0\0", 8);
    EXPECT_EQ(masked_crc32c(len24.data(), len24.size()), 0x224B7FA3u);
}

TEST(Crc32c, HardwareAndTablePathsAgreeOnEveryLengthAndAlignment) {
    std::mt19937 rng(42);
    std::string data(4096, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    for (std::size_t off = 0; off < 9; ++off)
        for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 63u, 1000u, 4000u})
            EXPECT_EQ(crc32c(data.data() + off, n), crc32c_portable(data.data() + off, n)) << off << " " << n;
    // continuing a CRC equals one pass
    EXPECT_EQ(crc32c(data.data() + 10, 90, crc32c(data.data(), 10)), crc32c(data.data(), 100));
}

namespace {

std::string pytorch_like_file() {
    std::string f = file_version_event(1000.0);
    for (int step = 0; step < 5; ++step) {
        f += scalar_event("train_step_timing in s", step, 2.5f + static_cast<float>(step), 1000.0 + step);
        f += scalar_event("reduced_train_loss", step, 10.0f - static_cast<float>(step), 1000.0 + step);
    }
    return f;
}

}  // namespace

TEST(Tensorboard, SimpleValuesWithElidedStepZeroAndCanonicalNames) {
    LogData d = parse_text("tensorboard", pytorch_like_file());
    EXPECT_EQ(d.stats.records, 11u);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{2.5, 3.5, 4.5, 5.5, 6.5}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{10, 9, 8, 7, 6}));
    EXPECT_EQ(d.find("loss")->source_name, "reduced_train_loss");
    EXPECT_EQ(d.find("loss")->points[2].wall_time, 1002.0);
}

TEST(Tensorboard, TensorScalarsInEveryEncoding) {
    std::string f = file_version_event(1.0);
    // DT_FLOAT in tensor_content with an empty shape (TF2 tf.summary.scalar)
    f += tensor_event(
        "content_float", 1,
        Proto().varint_field(1, 1).bytes_field(2, "").bytes_field(4, Proto::le32(std::bit_cast<std::uint32_t>(0.25f))),
        1.0);
    // DT_FLOAT in float_val, packed and unpacked (PyTorch new_style)
    f += tensor_event("float_val_packed", 1,
                      Proto().varint_field(1, 1).bytes_field(5, Proto::le32(std::bit_cast<std::uint32_t>(1.5f))), 1.0);
    f += tensor_event("float_val_unpacked", 1, Proto().varint_field(1, 1).float_field(5, 2.5f), 1.0);
    // DT_DOUBLE: double_val and content
    f += tensor_event("double_val", 1, Proto().varint_field(1, 2).double_field(6, 0.1), 1.0);
    f +=
        tensor_event("double_content", 1,
                     Proto().varint_field(1, 2).bytes_field(4, Proto::le64(std::bit_cast<std::uint64_t>(1e-300))), 1.0);
    // DT_HALF 1.5 = 0x3e00 in half_val and in content; DT_BFLOAT16 -2.0 = 0xc000
    f += tensor_event("half_val", 1, Proto().varint_field(1, 19).varint_field(13, 0x3e00), 1.0);
    f += tensor_event("half_content", 1, Proto().varint_field(1, 19).bytes_field(4, std::string("\x00\x3e", 2)), 1.0);
    f += tensor_event("bf16_val", 1, Proto().varint_field(1, 14).varint_field(13, 0xc000), 1.0);
    // integers
    f += tensor_event("int64_val", 1, Proto().varint_field(1, 9).varint_field(10, 123456789012ull), 1.0);
    f += tensor_event("int32_val", 1, Proto().varint_field(1, 3).varint_field(7, static_cast<std::uint64_t>(-5)), 1.0);
    // not scalars: two elements, strings
    Proto shape2;
    shape2.message_field(2, Proto().varint_field(1, 2));
    f += tensor_event("vector", 1,
                      Proto().varint_field(1, 1).message_field(2, shape2).bytes_field(4, std::string(8, '\0')), 1.0);
    f += tensor_event("text", 1, Proto().varint_field(1, 7).bytes_field(8, "hello"), 1.0);
    // a shape of [1] is still one element
    Proto shape1;
    shape1.message_field(2, Proto().varint_field(1, 1));
    f += tensor_event("one_element", 1, Proto().varint_field(1, 1).message_field(2, shape1).float_field(5, 7.0f), 1.0);

    LogData d = parse_text("tensorboard", f);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_EQ(at(d, "content_float", 1), 0.25);
    EXPECT_EQ(at(d, "float_val_packed", 1), 1.5);
    EXPECT_EQ(at(d, "float_val_unpacked", 1), 2.5);
    EXPECT_EQ(at(d, "double_val", 1), 0.1);
    EXPECT_EQ(at(d, "double_content", 1), 1e-300);
    EXPECT_EQ(at(d, "half_val", 1), 1.5);
    EXPECT_EQ(at(d, "half_content", 1), 1.5);
    EXPECT_EQ(at(d, "bf16_val", 1), -2.0);
    EXPECT_EQ(at(d, "int64_val", 1), 123456789012.0);
    EXPECT_EQ(at(d, "int32_val", 1), -5.0);
    EXPECT_EQ(at(d, "one_element", 1), 7.0);
    EXPECT_EQ(d.find("vector"), nullptr);
    EXPECT_EQ(d.find("text"), nullptr);
}

TEST(Tensorboard, DataChecksumMismatchSkipsOnlyThatRecord) {
    std::string good = scalar_event("x", 1, 1.0f, 1.0);
    std::string bad = scalar_event("x", 2, 2.0f, 2.0);
    bad[bad.size() - 6] ^= 0x01;  // a byte of the float: the data CRC no longer matches
    std::string f = file_version_event(0.0) + good + bad + scalar_event("x", 3, 3.0f, 3.0);
    LogData d = parse_text("tensorboard", f);
    EXPECT_EQ(steps(d, "x"), (std::vector<std::int64_t>{1, 3}));
    EXPECT_EQ(d.stats.corrupt, 1u);
    EXPECT_FALSE(d.stats.truncated_tail);
    ASSERT_FALSE(d.stats.warnings.empty());
    EXPECT_NE(d.stats.warnings[0].find("checksum"), std::string::npos);
}

TEST(Tensorboard, BinaryNoiseAndABadLengthChecksumResynchroniseOnTheNextRecord) {
    std::string f = file_version_event(0.0) + scalar_event("x", 1, 1.0f, 1.0);
    f += std::string("\x13\x37 binary noise \xff\xff\xff\xff\x00\x00", 22);
    std::string broken_len = scalar_event("x", 2, 2.0f, 2.0);
    broken_len[8] ^= 0x55;  // the length CRC
    f += broken_len;
    f += scalar_event("x", 3, 3.0f, 3.0);
    LogData d = parse_text("tensorboard", f);
    EXPECT_EQ(steps(d, "x"), (std::vector<std::int64_t>{1, 3}));
    EXPECT_GE(d.stats.corrupt, 1u);
}

TEST(Tensorboard, RecordCutByAWriterInProgressIsATruncatedTailNotCorruption) {
    std::string f = pytorch_like_file();
    std::string last = scalar_event("reduced_train_loss", 5, 5.0f, 1005.0);
    for (std::size_t cut : {3u, 12u, 20u, static_cast<unsigned>(last.size() - 1)}) {
        LogData d = parse_text("tensorboard", f + last.substr(0, cut));
        EXPECT_TRUE(d.stats.truncated_tail) << cut;
        EXPECT_EQ(d.stats.corrupt, 0u) << cut;
        EXPECT_EQ(values(d, "loss").size(), 5u) << cut;
    }
}

TEST(Tensorboard, UndecodableEventProtoIsCountedCorrupt) {
    std::string f = file_version_event(0.0) + tfrecord("\x2a\x7f\x01") + scalar_event("x", 1, 1.0f, 1.0);
    LogData d = parse_text("tensorboard", f);
    EXPECT_EQ(d.stats.corrupt, 1u);
    EXPECT_EQ(values(d, "x"), (std::vector<double>{1.0}));
}

TEST(Tensorboard, DirectoryOfRestartedRunReadsFilesInNameOrderAndLaterWins) {
    TempDir dir;
    std::string first = file_version_event(100.0);
    for (int s = 0; s < 4; ++s) first += scalar_event("lr", s, static_cast<float>(s), 100.0 + s);
    std::string second = file_version_event(200.0);  // restarted from step 2
    for (int s = 2; s < 6; ++s) second += scalar_event("lr", s, 10.0f + static_cast<float>(s), 200.0 + s);
    fs::create_directories(dir.path() / "version_0");
    write_all(dir.path() / "version_0" / "events.out.tfevents.1700000200.host.1.0", second);
    write_all(dir.path() / "version_0" / "events.out.tfevents.1700000100.host.1.0", first);
    write_all(dir.path() / "version_0" / "hparams.yaml", "lr: 1\n");
    EXPECT_EQ(detect_format(dir.path()), "tensorboard");
    LogData d = parse_logs({dir.path()});
    EXPECT_EQ(d.files.size(), 2u);
    EXPECT_EQ(d.files[0].filename(), "events.out.tfevents.1700000100.host.1.0");
    EXPECT_EQ(steps(d, "lr"), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(values(d, "lr"), (std::vector<double>{0, 1, 12, 13, 14, 15}));
    EXPECT_EQ(d.find("lr")->points[2].wall_time, 202.0);
}

TEST(Tensorboard, TagSelectionKeepsOnlyTheNamedTags) {
    ParseOptions o;
    o.tags = {"train_step_timing in s"};
    LogData d = parse_text("tensorboard", pytorch_like_file(), o);
    EXPECT_EQ(d.series.size(), 1u);
    EXPECT_NE(d.find("step_time_s"), nullptr);
}

TEST(Tensorboard, MegatronTagsMapToCanonicalNames) {
    std::string f = file_version_event(0.0) + scalar_event("iteration-time", 10, 5.5f, 1.0) +
                    scalar_event("lm loss", 10, 2.0f, 1.0) + scalar_event("lm loss vs samples", 20480, 2.0f, 1.0);
    LogData d = parse_text("tensorboard", f);
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{5.5}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{2.0}));
    EXPECT_EQ(steps(d, "lm loss vs samples"), (std::vector<std::int64_t>{20480}));
}

TEST(Tensorboard, DetectedFromContentWithoutTheUsualFileName) {
    TempDir dir;
    write_all(dir.path() / "run.bin", pytorch_like_file());
    EXPECT_EQ(detect_format(dir.path() / "run.bin"), "tensorboard");
    EXPECT_EQ(parse_logs({dir.path() / "run.bin"}).stats.records, 11u);
}

TEST(Tensorboard, ChunkingDoesNotChangeTheResult) {
    std::string f = pytorch_like_file();
    LogData whole = parse_text("tensorboard", f);
    for (std::size_t chunk : {1u, 5u, 13u, 100u}) {
        LogData d = parse_text("tensorboard", f, {}, chunk);
        EXPECT_EQ(values(d, "loss"), values(whole, "loss"));
        EXPECT_EQ(d.stats.records, whole.stats.records);
    }
}
