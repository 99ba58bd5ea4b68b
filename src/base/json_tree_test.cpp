#include "base/json_tree.hpp"

#include <yajl/yajl_tree.h>

#include <catch2/catch.hpp>
#include <string>

namespace {

std::string parse_error(std::string_view text) {
    auto tree = husk::parse_json_tree(text);
    return tree ? std::string("(parsed)") : tree.error().message();
}

}  // namespace

TEST_CASE("parse_json_tree refuses a million nested arrays without building a tree", "[base]") {
    // Before the bound, yajl_tree_free recursed once per level and overflowed the stack.
    std::string text = std::string(1'000'000, '[') + std::string(1'000'000, ']');
    CHECK(parse_error(text) == "invalid JSON: nested deeper than 256 levels");
}

TEST_CASE("parse_json_tree accepts 256 levels and refuses 257", "[base]") {
    auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
    CHECK(parse_error(nested(256)) == "(parsed)");
    CHECK(parse_error(nested(257)) == "invalid JSON: nested deeper than 256 levels");
    CHECK(parse_error("{\"a\":" + nested(255) + "}") == "(parsed)");
    CHECK(parse_error("{\"a\":" + nested(256) + "}") == "invalid JSON: nested deeper than 256 levels");
}

TEST_CASE("parse_json_tree refuses a document larger than 4 MiB", "[base]") {
    std::string text = "\"" + std::string(husk::max_json_bytes, 'a') + "\"";
    CHECK(parse_error(text) == "invalid JSON: " + std::to_string(text.size()) + " bytes, more than husk reads (4 MiB)");
    CHECK(parse_error("\"" + std::string(husk::max_json_bytes - 2, 'a') + "\"") == "(parsed)");
}

TEST_CASE("parse_json_tree refuses an escaped NUL in a string, naming its JSON path", "[base]") {
    CHECK(parse_error(R"({"process":{"args":["echo\u0000-not-echo"]}})") ==
          "process.args[0]: the string contains a NUL character (\\u0000)");
    CHECK(parse_error(R"({"mounts":[{"destination":"/a"},{"destination":"/b\u0000c"}]})") ==
          "mounts[1].destination: the string contains a NUL character (\\u0000)");
    CHECK(parse_error(R"({"a":[[1,2],[3,"x\u0000"]]})") ==
          "a[1][1]: the string contains a NUL character (\\u0000)");
    CHECK(parse_error(R"("\u0000")") == "(top level): the string contains a NUL character (\\u0000)");
}

TEST_CASE("parse_json_tree refuses an escaped NUL in a property name, naming the object", "[base]") {
    CHECK(parse_error(R"({"annotations":{"ok":"1","a\u0000b":"2"}})") ==
          "annotations: a property name contains a NUL character (\\u0000)");
}

TEST_CASE("parse_json_tree refuses a raw NUL byte instead of stopping there", "[base]") {
    // yajl_tree_parse reads up to the first NUL: "{}" followed by anything used to parse as {}.
    CHECK(parse_error(std::string("{}\0{\"x\":", 7)) == "invalid JSON: NUL byte at offset 2");
}

TEST_CASE("parse_json_tree keeps yajl's syntax messages and its tolerance of comments", "[base]") {
    CHECK(parse_error("{bad") == "invalid JSON: lexical error: invalid char in json text.");
    CHECK(parse_error("") == "invalid JSON: parse error: premature EOF");
    CHECK(parse_error("{} x") == "invalid JSON: parse error: trailing garbage");
    CHECK(parse_error("/* c */ {\"a\": 1} // c") == "(parsed)");
}

TEST_CASE("parse_json_tree builds the tree with numbers beyond 64 bits as text", "[base]") {
    auto tree = husk::parse_json_tree(R"({"big":18446744073709551616,"s":"\u00e9"})");
    REQUIRE(tree);
    husk::JsonRef number = tree->get().get("big");
    REQUIRE(number.is_number());
    CHECK(number.text() == "18446744073709551616");
    CHECK(tree->get().get("s").text() == "\u00e9");
}

TEST_CASE("parse_json_tree keeps members in document order, nested containers in place", "[base]") {
    auto tree = husk::parse_json_tree(R"({"a":[1,[2,{"x":null}],true],"b":{"c":"d","c":"e"},"f":false})");
    REQUIRE(tree);
    husk::JsonRef top = tree->get();
    REQUIRE(top.is_object());
    REQUIRE(top.size() == 3);
    CHECK(top.key(0) == "a");
    CHECK(top.key(1) == "b");
    CHECK(top.key(2) == "f");
    husk::JsonRef a = top.get("a");
    REQUIRE(a.is_array());
    REQUIRE(a.size() == 3);
    CHECK(a.element(0).text() == "1");
    REQUIRE(a.element(1).size() == 2);
    CHECK(a.element(1).element(0).text() == "2");
    CHECK(a.element(1).element(1).get("x").is_null());
    CHECK(a.element(2).is_true());
    // The last of duplicate keys, as Go's encoding/json reads them; both stay members.
    CHECK(top.get("b").size() == 2);
    CHECK(top.get("b").get("c").text() == "e");
    CHECK(top.get("f").is_boolean());
    CHECK_FALSE(top.get("f").is_true());
    CHECK_FALSE(top.get("missing"));
    CHECK_FALSE(a.get("x"));  // not an object
}

TEST_CASE("parse_json_tree counts only the brackets yajl sees", "[base]") {
    auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
    // Brackets inside strings, escaped quotes included, are text, not levels.
    CHECK(parse_error("[\"" + std::string(300, '[') + "\\\"" + std::string(300, '{') + "\"]") == "(parsed)");
    CHECK(parse_error("[\"\\\"]\"," + nested(255) + "]") == "(parsed)");
    CHECK(parse_error("[\"\\\\\"," + nested(256) + "]") == "invalid JSON: nested deeper than 256 levels");
    // A comment cannot hide levels by closing brackets that are not there.
    CHECK(parse_error("/* " + std::string(10, ']') + " */ " + nested(257)) ==
          "invalid JSON: nested deeper than 256 levels");
    CHECK(parse_error("/* ]] */ " + nested(256)) == "(parsed)");
    // "u0000" as plain text is no NUL; the escape still is, wherever it is.
    CHECK(parse_error(R"({"u0000":"u0000\\u0000"})") == "(parsed)");
    CHECK(parse_error(R"({"a":"x\\\u0000"})") == "a: the string contains a NUL character (\\u0000)");
}

namespace {

// Whether husk's tree holds what yajl's own tree parser makes of the same text (which husk used before): the same
// types, strings, numbers' text, members in the same order.
bool same_tree(husk::JsonRef ours, yajl_val theirs) {
    if (!ours || theirs == nullptr) return !ours && theirs == nullptr;
    switch (ours.type()) {
        case husk::JsonType::null: return YAJL_IS_NULL(theirs);
        case husk::JsonType::boolean_true: return YAJL_IS_TRUE(theirs);
        case husk::JsonType::boolean_false: return YAJL_IS_FALSE(theirs);
        case husk::JsonType::string: return YAJL_IS_STRING(theirs) && ours.text() == theirs->u.string;
        case husk::JsonType::number: return YAJL_IS_NUMBER(theirs) && ours.text() == theirs->u.number.r;
        case husk::JsonType::array:
            if (!YAJL_IS_ARRAY(theirs) || ours.size() != theirs->u.array.len) return false;
            for (std::size_t i = 0; i < ours.size(); ++i)
                if (!same_tree(ours.element(i), theirs->u.array.values[i])) return false;
            return true;
        case husk::JsonType::object:
            if (!YAJL_IS_OBJECT(theirs) || ours.size() != theirs->u.object.len) return false;
            for (std::size_t i = 0; i < ours.size(); ++i)
                if (ours.key(i) != theirs->u.object.keys[i] || !same_tree(ours.member(i), theirs->u.object.values[i]))
                    return false;
            return true;
    }
    return false;
}

}  // namespace

TEST_CASE("parse_json_tree builds the tree yajl_tree_parse builds", "[base]") {
    std::string many_members = "{";
    for (int i = 0; i < 300; ++i)
        many_members += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":[" + std::to_string(i) + "]";
    many_members += "}";
    const std::string documents[] = {
        "{}", "[]", "null", "true", "false", "0", "-0", "\"top\"", "1.5", "-2.5e-3", "1E400", "-1e-400",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
        "[1,2.0,-3,4e2,\"5\",null,true,false,{},[]]", "[[[]],[{}],{\"a\":[[1],{\"b\":[]}]}]",
        R"({"a":{"b":{"c":[{"d":"e"},{}]}},"a":2,"":"empty key","\u00e9\n\"\\":"\ud83d\ude00"})",
        "/* lead */ {\"x\": [ // line\n 1 ]}", many_members,
        R"({"id":"c","annotations":{},"pid":15387,"pidStartTime":5095553,"security":{"seccomp":"none"},)"
        R"("exit":{"code":0,"usage":{"cpuUsec":1476}}})",
    };
    for (const std::string& text : documents) {
        INFO(text);
        auto tree = husk::parse_json_tree(text);
        REQUIRE(tree);
        char message[256];
        yajl_val reference = yajl_tree_parse(text.c_str(), message, sizeof message);
        REQUIRE(reference != nullptr);
        CHECK(same_tree(tree->get(), reference));
        yajl_tree_free(reference);
    }
}

namespace {

// Random JSON-ish text: values of every kind, escapes, non-ASCII, comments, numbers of every shape, and
// (some of the time) a byte changed, dropped or added, so both readers see broken text too.
struct JsonDraw {
    unsigned state;
    unsigned next(unsigned n) {
        state = state * 1103515245u + 12345u;
        return (state >> 16) % n;
    }
    std::string value(int depth) {
        static const char* const scalars[] = {
            "0", "-0", "12", "-3.25", "1e9", "2E-3", "1.5e+7", "01", "1.", "-", ".5", "1e", "true", "false", "null",
            "tru", "nul", "\"\"", "\"a\"", "\"\\u00e9\"", "\"\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\"\\x\"", "\"caf\xc3\xa9\"",
            "\"\x7f\"", "\"\x01\"", "\"\\ud83d\\ude00\"", "\"\\u0041\"", "\"bad \xff\"", "18446744073709551616"};
        switch (depth > 4 ? 2 : next(5)) {
            case 0: {
                std::string out = "{";
                for (unsigned i = 0, n = next(4); i < n; ++i) {
                    out += i ? "," : "";
                    out += next(8) == 0 ? " \"k\\\"\" " : "\"k" + std::to_string(next(3)) + "\"";
                    out += next(6) == 0 ? " : " : ":";
                    out += value(depth + 1);
                }
                return out + (next(10) == 0 ? " }" : "}");
            }
            case 1: {
                std::string out = next(10) == 0 ? "[ " : "[";
                for (unsigned i = 0, n = next(4); i < n; ++i) out += (i ? (next(7) == 0 ? " ,\n" : ",") : "") + value(depth + 1);
                return out + "]";
            }
            default: return scalars[next(sizeof scalars / sizeof *scalars)];
        }
    }
    std::string document() {
        std::string text = (next(12) == 0 ? "/* c */ " : next(12) == 0 ? "\t\r\n " : "") + value(0);
        if (next(12) == 0) text += next(2) ? " // end" : " x";
        if (!text.empty() && next(3) == 0) {
            const std::size_t at = next(static_cast<unsigned>(text.size()));
            static const char bytes[] = "{}[],:\" \\/*0-e.\x0b\x0c\x80";
            switch (next(3)) {
                case 0: text.erase(at, 1); break;
                case 1: text.insert(at, 1, bytes[next(sizeof bytes - 1)]); break;
                default: text[at] = bytes[next(sizeof bytes - 1)];
            }
        }
        return text;
    }
};

}  // namespace

TEST_CASE("parse_json_tree reads every text as yajl does: the same tree or the same error", "[base]") {
    JsonDraw draw{20261128};
    int plain = 0, parsed = 0, refused = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string text = draw.document();
        INFO(text);
        auto yajl = husk::parse_json_tree_with_yajl(text);
        if (auto own = husk::parse_plain_json(text)) {
            ++plain;
            REQUIRE(yajl);
            REQUIRE(husk::same_json(own->get(), yajl->get()));
        }
        auto tree = husk::parse_json_tree(text);
        REQUIRE(tree.has_value() == yajl.has_value());
        if (tree) {
            ++parsed;
            REQUIRE(husk::same_json(tree->get(), yajl->get()));
        } else {
            ++refused;
            REQUIRE(tree.error().message() == yajl.error().message());
        }
    }
    // Each kind was drawn plenty: texts of the plain shape, others yajl parses, others it refuses.
    CHECK(plain > 2000);
    CHECK(parsed - plain > 1000);
    CHECK(refused > 2000);
}
