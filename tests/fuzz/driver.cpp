// A small coverage-guided fuzzing driver for targets written against libFuzzer's interface
// (LLVMFuzzerTestOneInput), built with g++: clang's libFuzzer cannot be used here, since clang 14 cannot
// compile libstdc++ 12's <expected> that husk's headers need. Coverage comes from g++'s
// -fsanitize-coverage=trace-pc (coverage.cpp); crashes from ASan/UBSan, signals and std::terminate.
//   fuzz-TARGET [-max_total_time=S] [-runs=N] [-max_len=N] [-seed=N] [-timeout=S] [-artifact_prefix=P]
//               CORPUS_DIR_OR_FILE...
// Directories are seed corpora (read, never written): their inputs run first, then mutants of them until
// the time or run budget is spent. With only files, each file runs once (to reproduce a crash).
// A crash or an input running longer than -timeout writes the input to P crash-<hash> / timeout-<hash> and
// exits non-zero. Flags use libFuzzer's spelling so that either can run a target.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "coverage.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Provided by the sanitizer runtimes when the build has them.
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*)());

// UBSan stops at the first report, with abort() so that the SIGABRT handler saves the input (UBSan does
// not call the sanitizers' death callback).
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:abort_on_error=1:print_stacktrace=1"; }

namespace {

using husk::fuzz::coverage_map;
using husk::fuzz::coverage_map_size;

struct Options {
    double max_total_time = 60;
    long long runs = -1;
    std::size_t max_len = 4096;
    unsigned seed = 0;
    unsigned timeout = 10;
    std::string artifact_prefix;
    std::vector<std::string> inputs;
};

// The input under test, for the crash handlers (async-signal-safe: plain globals, write(2)).
const std::uint8_t* current_data = nullptr;
std::size_t current_size = 0;
std::string crash_path_prefix;
char crash_path[4096];

std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

// Writes the current input to <prefix><kind>-<hash>; called from signal handlers and death callbacks.
void save_input(const char* kind) {
    if (current_data == nullptr) return;
    static const char hex[] = "0123456789abcdef";
    std::size_t n = 0;
    auto append = [&](const char* s) {
        while (*s != '\0' && n + 1 < sizeof crash_path) crash_path[n++] = *s++;
    };
    append(crash_path_prefix.c_str());
    append(kind);
    append("-");
    std::uint64_t h = fnv1a(current_data, current_size);
    for (int shift = 60; shift >= 0 && n + 1 < sizeof crash_path; shift -= 4) crash_path[n++] = hex[(h >> shift) & 15];
    crash_path[n] = '\0';
    int fd = ::open(crash_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        for (std::size_t done = 0; done < current_size;) {
            ssize_t w = ::write(fd, current_data + done, current_size - done);
            if (w <= 0) break;
            done += static_cast<std::size_t>(w);
        }
        ::close(fd);
    }
    const char* msg[] = {"fuzz: ", kind, ": input written to ", crash_path, "\n"};
    for (const char* m : msg) (void)!::write(2, m, std::strlen(m));
    current_data = nullptr;  // once
}

void on_death() { save_input("crash"); }

void on_signal(int sig) {
    save_input(sig == SIGALRM ? "timeout" : "crash");
    if (sig == SIGALRM) _exit(70);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

void on_terminate() {
    const char msg[] = "fuzz: uncaught exception escaped the target\n";
    (void)!::write(2, msg, sizeof msg - 1);
    save_input("crash");
    std::abort();
}

bool parse_flag(const std::string& arg, const char* name, std::string& value) {
    std::string prefix = std::string("-") + name + "=";
    if (arg.rfind(prefix, 0) != 0) return false;
    value = arg.substr(prefix.size());
    return true;
}

Options parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], v;
        if (parse_flag(arg, "max_total_time", v)) o.max_total_time = std::stod(v);
        else if (parse_flag(arg, "runs", v)) o.runs = std::stoll(v);
        else if (parse_flag(arg, "max_len", v)) o.max_len = std::stoul(v);
        else if (parse_flag(arg, "seed", v)) o.seed = static_cast<unsigned>(std::stoul(v));
        else if (parse_flag(arg, "timeout", v)) o.timeout = static_cast<unsigned>(std::stoul(v));
        else if (parse_flag(arg, "artifact_prefix", v)) o.artifact_prefix = v;
        else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "fuzz: unknown flag %s\n", arg.c_str());
            std::exit(2);
        } else o.inputs.push_back(arg);
    }
    return o;
}

std::string read_whole(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Hit counts bucketed as AFL does, one bit per bucket: a site reached more often is new coverage too.
unsigned char bucket(unsigned char count) {
    if (count == 0) return 0;
    if (count <= 3) return static_cast<unsigned char>(1u << (count - 1));
    if (count <= 7) return 8;
    if (count <= 15) return 16;
    if (count <= 31) return 32;
    if (count <= 127) return 64;
    return 128;
}

class Fuzzer {
public:
    explicit Fuzzer(const Options& o) : opt_(o), rng_(o.seed != 0 ? o.seed : std::random_device{}()) {}

    // Runs one input; true when it reached a site or a hit-count bucket never seen before.
    bool run(const std::string& input) {
        std::memset(coverage_map, 0, coverage_map_size);
        current_data = reinterpret_cast<const std::uint8_t*>(input.data());
        current_size = input.size();
        ::alarm(opt_.timeout);
        LLVMFuzzerTestOneInput(current_data, current_size);
        ::alarm(0);
        current_data = nullptr;
        ++executions_;
        bool fresh = false;
        // Most of the map is zero: skip it eight counters at a time.
        for (std::size_t i = 0; i < coverage_map_size; ++i) {
            if (i % 8 == 0) {
                std::uint64_t word;
                std::memcpy(&word, coverage_map + i, sizeof word);
                if (word == 0) {
                    i += 7;
                    continue;
                }
            }
            unsigned char b = bucket(coverage_map[i]);
            if ((b & ~seen_[i]) != 0) {
                if (seen_[i] == 0) ++sites_;
                seen_[i] |= b;
                fresh = true;
            }
        }
        return fresh;
    }

    void add_seed(std::string input) {
        if (input.size() > opt_.max_len) input.resize(opt_.max_len);
        learn_tokens(input);
        run(input);
        corpus_.push_back(std::move(input));  // every seed stays, new coverage or not
    }

    void loop() {
        if (corpus_.empty()) corpus_.emplace_back();
        auto start = std::chrono::steady_clock::now();
        auto deadline = start + std::chrono::duration<double>(opt_.max_total_time);
        for (long long n = 0; opt_.runs < 0 || n < opt_.runs; ++n) {
            if ((n & 63) == 0 && std::chrono::steady_clock::now() >= deadline) break;
            std::string input = corpus_[pick(corpus_.size())];
            int rounds = 1 + static_cast<int>(pick(4));
            for (int r = 0; r < rounds; ++r) mutate(input);
            if (input.size() > opt_.max_len) input.resize(opt_.max_len);
            if (run(input)) corpus_.push_back(std::move(input));
        }
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "fuzz: %llu runs in %.0f s (%.0f/s), corpus %zu inputs, %zu coverage sites\n",
                     static_cast<unsigned long long>(executions_), seconds,
                     seconds > 0 ? static_cast<double>(executions_) / seconds : 0.0, corpus_.size(), sites_);
    }

private:
    std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

    // A dictionary from the seeds: every quoted string and every number in them. JSON keys and syscall
    // names are what trace-pc cannot guess byte by byte.
    void learn_tokens(const std::string& seed) {
        for (std::size_t i = 0; i < seed.size(); ++i) {
            std::size_t end = i;
            if (seed[i] == '"') {
                end = seed.find('"', i + 1);
                if (end == std::string::npos) break;
                ++end;
            } else if (std::isdigit(static_cast<unsigned char>(seed[i]))) {
                while (end < seed.size() && std::isalnum(static_cast<unsigned char>(seed[end]))) ++end;
            } else continue;
            std::string token = seed.substr(i, end - i);
            if (token.size() <= 64 && std::find(tokens_.begin(), tokens_.end(), token) == tokens_.end())
                tokens_.push_back(token);
            i = end - 1;
        }
    }

    void mutate(std::string& s) {
        std::size_t at = pick(s.size() + 1);
        switch (pick(s.empty() ? 3 : 9)) {
        case 0:  // insert a dictionary token
            if (!tokens_.empty()) s.insert(at, tokens_[pick(tokens_.size())]);
            break;
        case 1:  // insert a JSON-ish byte
            s.insert(at, 1, "{}[]\",:0-.\\eu \n\x00\xff"[pick(16)]);
            break;
        case 2:  // splice: a piece of another input
            if (!corpus_.empty()) {
                const std::string& other = corpus_[pick(corpus_.size())];
                std::size_t from = pick(other.size() + 1);
                s.insert(at, other.substr(from, pick(std::min<std::size_t>(other.size() - from, 256) + 1)));
            }
            break;
        case 3:  // flip a bit
            if (at < s.size()) s[at] = static_cast<char>(s[at] ^ (1 << pick(8)));
            break;
        case 4:  // set a random byte
            if (at < s.size()) s[at] = static_cast<char>(pick(256));
            break;
        case 5:  // erase a run
            if (at < s.size()) s.erase(at, 1 + pick(std::min<std::size_t>(s.size() - at, 32)));
            break;
        case 6:  // duplicate a run
            if (at < s.size()) s.insert(at, s.substr(at, 1 + pick(std::min<std::size_t>(s.size() - at, 64))));
            break;
        case 7:  // replace a run with a dictionary token
            if (at < s.size() && !tokens_.empty())
                s.replace(at, 1 + pick(std::min<std::size_t>(s.size() - at, 16)), tokens_[pick(tokens_.size())]);
            break;
        default:  // an interesting number
            static const char* const numbers[] = {"0", "-1", "1", "4294967295", "4294967296", "18446744073709551615",
                                                  "18446744073709551616", "-9223372036854775808", "1e308", "0.5"};
            s.insert(at, numbers[pick(std::size(numbers))]);
            break;
        }
    }

    Options opt_;
    std::mt19937_64 rng_;
    std::vector<std::string> corpus_;
    std::vector<std::string> tokens_;
    std::vector<unsigned char> seen_ = std::vector<unsigned char>(coverage_map_size);
    std::uint64_t executions_ = 0;
    std::size_t sites_ = 0;
};

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_files(const std::string& dir) {
    std::vector<std::string> files;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
        ::closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt = parse_options(argc, argv);
    crash_path_prefix = opt.artifact_prefix;
    std::set_terminate(on_terminate);
    for (int sig : {SIGABRT, SIGALRM}) ::signal(sig, on_signal);
    // With a sanitizer runtime, it reports faults (with a stack) and then calls on_death; without, we catch them.
    if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(on_death);
    else
        for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) ::signal(sig, on_signal);

    Fuzzer fuzzer(opt);
    bool any_dir = false;
    for (const std::string& input : opt.inputs) {
        if (is_directory(input)) {
            any_dir = true;
            for (const std::string& file : list_files(input)) fuzzer.add_seed(read_whole(file));
        } else {
            fuzzer.run(read_whole(input));
            std::fprintf(stderr, "fuzz: %s: ran, no crash\n", input.c_str());
        }
    }
    if (any_dir || opt.inputs.empty()) fuzzer.loop();
    return 0;
}
