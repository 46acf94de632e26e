// Pinned digests: the SHA-256 that eigsolve prints and reports, for bundled matrices in every
// precision. The values were recorded with the hand-written SHA-256 that preceded the libcrypto
// one; a change here means either the eigenvalue bits or the digest definition changed, and both
// are part of the reproducibility contract (docs/reproducibility.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/digest.hpp"
#include "cli_util.hpp"
#include "core/dd_real.hpp"

using namespace eigsolve;

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256_hex(two.data(), two.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  Sha256 h;  // fed in uneven pieces
  for (std::size_t i = 0; i < million.size(); i += 777)
    h.update(million.data() + i, std::min<std::size_t>(777, million.size() - i));
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(EigenvalueDigest, IsTheShaOfTheLittleEndianBytes) {
  // Python: hashlib.sha256(struct.pack('<2f', 1.0, -0.5)).hexdigest(), and so on.
  EXPECT_EQ(eigenvalue_digest(std::vector<float>{1.0f, -0.5f}),
            "e5e0ce39fac89cd93af5ba8bcad2fe35d88c75417c7e44941fe5ee4e48f1cf75");
  EXPECT_EQ(eigenvalue_digest(std::vector<double>{1.0, 2.0}),
            "dc91ce9a50ddc828740aa26743716897fdb2bb64f1db662fe263a59be56145ae");
  // dd: hi then lo of each value ('<4d', 1, 2^-60, 3, -2^-55)
  EXPECT_EQ(eigenvalue_digest(std::vector<dd_real>{dd_real(1.0, 0x1p-60), dd_real(3.0, -0x1p-55)}),
            "b83bfc8a278c75c3320f75a897322e1f7eb6442e1e0e6862494874ebee32c051");
  EXPECT_EQ(eigenvalue_digest(std::vector<double>{}),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

namespace {

struct Pinned {
  const char* file;
  const char* args;
  const char* digest;
  /// dd: the digest of a build with the sloppy dd madd (EIGSOLVE_DD_SLOPPY_MADD; other bits).
  const char* sloppy_digest = nullptr;
};

/// The digest this build must give.
std::string want_digest(const Pinned& p) {
  return eigsolve::kDdSloppyMadd && p.sloppy_digest ? p.sloppy_digest : p.digest;
}

void PrintTo(const Pinned& p, std::ostream* os) {
  *os << p.file << " " << p.args;
}

std::string printed_digest(const std::string& err) {
  auto pos = err.find("digest: sha256:");
  return pos == std::string::npos ? std::string() : err.substr(pos + 15, 64);
}

class PinnedDigest : public ::testing::TestWithParam<Pinned> {};

TEST_P(PinnedDigest, PrintedAndReportedDigestsAreTheRecordedOnes) {
  const Pinned& p = GetParam();
  cli::TempDir dir;
  auto r = cli::run(cli::matrix(p.file) + " " + p.args + " -t 2 --report " + (dir / "r.json") +
                    " -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(printed_digest(r.err), want_digest(p)) << p.file << " " << p.args;
  auto rep = nlohmann::json::parse(cli::slurp(dir / "r.json"));
  EXPECT_EQ(rep["eigenvalues"]["digest"], "sha256:" + want_digest(p));
}

// Recorded with the build of commit f4470dd (before libcrypto), `-t 2`; the sloppy dd madd's
// with the build of session 43 (the option's first commit). Session 54 changed the dd Sturm
// count's division (docs/canonical-bisection.md): bcsstk01's dd digests recorded anew then in
// both builds (can_24's and full_symmetric_array4's did not change). Session 47 made `--reduction
// auto` two-stage in s and d at every order: their one-stage digests stay pinned with the explicit
// option (the same bits as before), the default's are the two-stage ones recorded then (the
// same at -t 1, 2 and 3, and on the GPU: bench/results/2026-12-05-h100-s47).
const Pinned kPinned[] = {
    {"bcsstk01.mtx", "-p s --reduction one-stage",
     "8202b07ec3bbccee03b0846a4e96b322a2d0dbc1e5aebd35e12521bf8ca38346"},
    {"bcsstk01.mtx", "-p s", "bbe53e524aaafc83b6d3ea939338a9e05ae391711ee73da3cfe734e97c84c11b"},
    {"bcsstk01.mtx", "-p d --reduction one-stage",
     "71bab08109dc91ff1379d04fdca350f10b7f620d104a124852f9052d176d65bb"},
    {"bcsstk01.mtx", "-p d", "a399c4ff10fa17d1387cf15d6a7016a8b8b19958003681c5f32a71e3130cec87"},
    {"bcsstk01.mtx", "-p z", "71bab08109dc91ff1379d04fdca350f10b7f620d104a124852f9052d176d65bb"},
    {"bcsstk01.mtx", "-p dd", "3205880704ef020b620e3a7d6b00efbd3a7e16fdbfad44db42c640f533df09bf",
     "3fdc5a5f2b8f3732431ed930da7e717842f1fdc84f65e93458d695a7e75db756"},
    {"bcsstk01.mtx", "-p dd --index-range 2:5",
     "81eea6c039ea79c44a53658cb876a8b00d446edcd0ee6035f00819d8724cab57",
     "11f1e35fb7b3134ab2c5f981b3f3e79747e01e0eb78e8d5652f352dd054823ed"},
    {"can_24.mtx", "-p s --reduction one-stage",
     "73bd99e9e52511706cbd6888ae49055c403b6da2659282f46e1c4aca2c9bbf82"},
    {"can_24.mtx", "-p s", "01fd01ea7cca6dc38498e20002113a87d3630e66e0749b0369f1c9bd75d85097"},
    {"can_24.mtx", "-p d --reduction one-stage",
     "e967fbe159cb0d5b497e3615d991e08e0c2f81fdce868b289b336d03f9b52bf5"},
    {"can_24.mtx", "-p d", "f0808d48fef976a33b8e1e22deaee7cf6038fe31993a3052b163cedfa8e2a821"},
    {"can_24.mtx", "-p dd", "f9a829a5876eeee780eea16532a0f6e11cdc1bbd5f6c073584812a84e0cf4a4b",
     "3fdf3caba2e027d9376237e8015813dc234e8cfd24f6ed6c2f31ccec888dbb4a"},
    {"494_bus.mtx", "-p s --reduction one-stage",
     "6a6c30985c3eb41cd2479c670499ba183511351a61e7ecb31b61f1e323baa03e"},
    {"494_bus.mtx", "-p s", "b9fc2537ca38b5adc4a3ef9fd57361c13bbbb358aa5cfc3dd347d8e973ad3681"},
    {"494_bus.mtx", "-p d --reduction one-stage",
     "6642ef1dbe202094c3a3ff6eaa08f183008acd5f5ff07310f7a21d130aa359a4"},
    {"494_bus.mtx", "-p d", "d799d6297dcfb93d6e2fd68ea1e441662c0a630352b8a1e66be3e9988c9de306"},
    {"LFAT5.mtx", "-p c", "df25f96fcf862db89357826d749daaa9f924334a0ed21d6de41e82aaecbfdb2b"},
    {"full_symmetric_array4.mtx", "-p dd",
     "4c475a958eb29193340c94a046edd0bbc7a64a78da7932d2688e54173e1e94f8",
     "b1259e84277c72c91fd24bac04ae2dc4a54c101faf873ec940aa6de428676264"},
    {"primme_HA_hermitian245.mtx", "-p c",
     "43a98fde6d2b492de06de96a05c8eaf44ef0b2624e85bee71806befafa697454"},
    {"primme_HA_hermitian245.mtx", "-p z",
     "a7f8b26e7990d38767cb333bddff1d2c329901d8a379302fe9c7cf1a2e60d0dd"},
    {"cholmod_c_hermitian3.mtx", "-p z",
     "fe2cf403a540388a33a56010481170760ba61d7f304d704f329fd1b85c307f88"},
};

INSTANTIATE_TEST_SUITE_P(Bundled, PinnedDigest, ::testing::ValuesIn(kPinned));

}  // namespace

TEST(Report, IsJsonWithTheFieldsInOrder) {
  cli::TempDir dir;
  auto r = cli::run(cli::matrix("bcsstk01.mtx") + " -p dd -q --index-range 2:5 --report " +
                    (dir / "r.json") + " -o " + (dir / "w.txt"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = cli::slurp(dir / "r.json");
  auto rep = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (auto& [k, v] : rep.items())
    keys.push_back(k);
  const std::vector<std::string> want = {"tool",        "version",     "input",   "format",
                                         "field",       "symmetry",    "n",       "precision",
                                         "dd_madd",     "device",      "threads", "tridiag_solver",
                                         "panel_width", "reduction",   "vectors", "subset",
                                         "seconds",     "eigenvalues", "outputs"};
  EXPECT_EQ(keys, want);
  EXPECT_EQ(rep["n"], 48);
  EXPECT_EQ(rep["precision"], "dd");
  EXPECT_EQ(rep["dd_madd"], eigsolve::kDdSloppyMadd ? "sloppy" : "accurate");
  EXPECT_EQ(rep["subset"]["kind"], "index");
  EXPECT_EQ(rep["subset"]["from"], 2);
  EXPECT_EQ(rep["subset"]["to"], 5);
  // dd extremes: the nearest double as a number, all digits as a string
  const auto& e = rep["eigenvalues"];
  EXPECT_TRUE(e["min"].is_number());
  EXPECT_EQ(e["count"], 4);
  // As before nlohmann-json; the sloppy dd madd's differ from the 27th digit (both within the
  // normwise bound: |lambda| <= ||A|| ~ 3e9 here). min_dd recorded anew in session 54 (the dd
  // count's division: the 30th-31st digits moved, within the same bound).
  EXPECT_EQ(e["min_dd"], eigsolve::kDdSloppyMadd ? "8.97000981805117180529873468475793e+03"
                                                 : "8.97000981805117180529873469008512e+03");
  EXPECT_EQ(e["max_dd"], eigsolve::kDdSloppyMadd ? "5.16340892349743536034388568470509e+04"
                                                 : "5.16340892349743536034388568605694e+04");
  EXPECT_EQ(e["min"].get<double>(), std::strtod(e["min_dd"].get<std::string>().c_str(), nullptr));
  EXPECT_EQ(text.back(), '\n');
}
