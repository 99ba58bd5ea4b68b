#include "base/json_writer.hpp"

#include <yajl/yajl_gen.h>

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <string>

namespace {

// The same calls through yajl_gen, which wrote husk's JSON before JsonWriter did: state.json files written by
// an older husk, and the output scripts parse, must not change.
class Reference {
public:
    explicit Reference(bool pretty) : gen_(yajl_gen_alloc(nullptr), &yajl_gen_free) {
        if (pretty) {
            yajl_gen_config(gen_.get(), yajl_gen_beautify, 1);
            yajl_gen_config(gen_.get(), yajl_gen_indent_string, "\t");
        }
    }
    yajl_gen get() const { return gen_.get(); }
    std::string str() const {
        const unsigned char* buffer = nullptr;
        size_t length = 0;
        yajl_gen_get_buf(gen_.get(), &buffer, &length);
        return std::string(reinterpret_cast<const char*>(buffer), length);
    }

private:
    std::unique_ptr<yajl_gen_t, decltype(&yajl_gen_free)> gen_;
};

struct Both {
    husk::JsonWriter ours;
    Reference theirs;
    explicit Both(bool pretty)
        : ours(pretty ? husk::JsonWriter::Style::pretty : husk::JsonWriter::Style::compact), theirs(pretty) {}

    void string(const std::string& s) {
        ours.string(s);
        yajl_gen_string(theirs.get(), reinterpret_cast<const unsigned char*>(s.data()), s.size());
    }
    void integer(long long v) {
        ours.integer(v);
        yajl_gen_integer(theirs.get(), v);
    }
    void value(std::mt19937& random, int depth) {
        switch (random() % (depth < 6 ? 8 : 5)) {
            case 0: ours.null(), yajl_gen_null(theirs.get()); break;
            case 1: {
                bool b = random() % 2;
                ours.boolean(b), yajl_gen_bool(theirs.get(), b);
                break;
            }
            case 2: integer(static_cast<long long>(random()) - (1LL << 31)); break;
            case 3: ours.raw("1.5e3"), yajl_gen_number(theirs.get(), "1.5e3", 5); break;
            case 4: {
                std::string s;
                for (unsigned n = random() % 40; n > 0; --n) s += static_cast<char>(random() % 4 ? 32 + random() % 95 : random() % 256);
                string(s);
                break;
            }
            case 5:
            case 6: {
                ours.begin_object(), yajl_gen_map_open(theirs.get());
                for (unsigned n = random() % 4; n > 0; --n) {
                    string("k" + std::to_string(random() % 100));
                    value(random, depth + 1);
                }
                ours.end_object(), yajl_gen_map_close(theirs.get());
                break;
            }
            default: {
                ours.begin_array(), yajl_gen_array_open(theirs.get());
                for (unsigned n = random() % 4; n > 0; --n) value(random, depth + 1);
                ours.end_array(), yajl_gen_array_close(theirs.get());
            }
        }
    }
};

}  // namespace

TEST_CASE("JsonWriter writes what yajl_gen wrote, compact and pretty", "[base]") {
    for (bool pretty : {false, true}) {
        std::mt19937 random(pretty ? 7 : 11);
        for (int document = 0; document < 2000; ++document) {
            Both both(pretty);
            both.value(random, 0);
            INFO("document " << document << (pretty ? " (pretty)" : " (compact)"));
            REQUIRE(both.ours.str() == both.theirs.str());
        }
    }
}

TEST_CASE("JsonWriter escapes every control character, quotes and backslashes as yajl_gen", "[base]") {
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    for (bool pretty : {false, true}) {
        Both both(pretty);
        both.ours.begin_array(), yajl_gen_array_open(both.theirs.get());
        both.string(all);
        both.string("/\"\\");
        both.integer(-9223372036854775807LL - 1);
        both.ours.unsigned_integer(18446744073709551615ULL), yajl_gen_number(both.theirs.get(), "18446744073709551615", 20);
        both.ours.end_array(), yajl_gen_array_close(both.theirs.get());
        CHECK(both.ours.str() == both.theirs.str());
    }
}

TEST_CASE("JsonWriter writes nothing for a call that would make invalid JSON, as yajl_gen", "[base]") {
    for (bool pretty : {false, true}) {
        Both both(pretty);
        both.ours.begin_object(), yajl_gen_map_open(both.theirs.get());
        both.integer(1);  // a key must be a string
        both.ours.null(), yajl_gen_null(both.theirs.get());
        both.string("a");
        both.integer(2);
        both.ours.end_object(), yajl_gen_map_close(both.theirs.get());
        both.string("after the end");
        CHECK(both.ours.str() == both.theirs.str());
        CHECK(both.ours.str().find("after") == std::string::npos);
    }
}
