// The SYMV tuning space and configuration names (backend-neutral: the CLI and the tuner parse
// them in every build).
#include <sstream>
#include <vector>

#include "core/errors.hpp"
#include "symv/symv_gpu.hpp"

namespace eigsolve {

namespace {
const char* load_name(SymvLoad l) {
  switch (l) {
    case SymvLoad::cg:
      return "cg";
    case SymvLoad::cs:
      return "cs";
    case SymvLoad::staged:
      return "st";
    case SymvLoad::xs:
      return "xs";
    case SymvLoad::ldg:
    default:
      return "ldg";
  }
}
}  // namespace

std::string SymvConfig::name() const {
  std::ostringstream os;
  os << (variant == SymvVariant::ticket ? "ticket" : "twopass") << "-t" << tiles_per_block << "-m"
     << blocks_per_sm << (wide ? "-w-" : "-n-") << load_name(load);
  if (early != 0) os << "-e" << early;
  return os.str();
}

SymvConfig parse_symv_config(const std::string& name) {
  // variant-tT-mM-(w|n)-load[-eE]
  SymvConfig c;
  std::vector<std::string> part;
  std::stringstream ss(name);
  for (std::string p; std::getline(ss, p, '-');)
    part.push_back(p);
  auto bad = [&] {
    return UsageError("bad SYMV configuration '" + name +
                      "' (expected e.g. ticket-t2-m4-w-ldg: ticket|twopass, t1|t2|t4, m1..m64, "
                      "w|n, ldg|cg|cs|st|xs, optionally -e1|-e8)");
  };
  if (part.size() == 6) {
    if (part[5] == "e1")
      c.early = 1;
    else if (part[5] == "e8")
      c.early = 8;
    else
      throw bad();
    part.pop_back();
  }
  if (part.size() != 5) throw bad();
  if (part[0] == "ticket")
    c.variant = SymvVariant::ticket;
  else if (part[0] == "twopass")
    c.variant = SymvVariant::twopass;
  else
    throw bad();
  if (part[1] == "t1" || part[1] == "t2" || part[1] == "t4")
    c.tiles_per_block = part[1][1] - '0';
  else
    throw bad();
  if (part[2].size() < 2 || part[2][0] != 'm') throw bad();
  try {
    std::size_t used = 0;
    c.blocks_per_sm = std::stoi(part[2].substr(1), &used);
    if (used != part[2].size() - 1 || c.blocks_per_sm < 1 || c.blocks_per_sm > 64) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (part[3] == "w")
    c.wide = true;
  else if (part[3] == "n")
    c.wide = false;
  else
    throw bad();
  if (part[4] == "ldg")
    c.load = SymvLoad::ldg;
  else if (part[4] == "cg")
    c.load = SymvLoad::cg;
  else if (part[4] == "cs")
    c.load = SymvLoad::cs;
  else if (part[4] == "st")
    c.load = SymvLoad::staged;
  else if (part[4] == "xs")
    c.load = SymvLoad::xs;
  else
    throw bad();
  return c;
}

std::vector<SymvConfig> symv_config_space() {
  std::vector<SymvConfig> out;
  for (SymvVariant v : {SymvVariant::ticket, SymvVariant::twopass})
    for (int t : {1, 2, 4})
      for (int m : {4, 8, 16, 32, 64})
        for (bool w : {true, false})
          for (SymvLoad l : {SymvLoad::ldg, SymvLoad::cs, SymvLoad::staged, SymvLoad::xs}) {
            SymvConfig c;
            c.variant = v;
            c.tiles_per_block = t;
            c.blocks_per_sm = m;
            c.wide = w;
            c.load = l;
            out.push_back(c);
          }
  return out;
}

std::vector<SymvConfig> symv_tune_space(const std::string& precision) {
  std::vector<SymvConfig> base = symv_config_space();
  if (precision != "s" && precision != "d") return base;
  std::vector<SymvConfig> out;
  for (const SymvConfig& c : base) {
    const bool plain16 = c.variant == SymvVariant::twopass && c.wide &&
                         (c.load == SymvLoad::ldg || c.load == SymvLoad::cs);
    if (!plain16) {
      out.push_back(c);
      continue;
    }
    for (int e : {1, 8}) {
      SymvConfig x = c;
      x.early = e;
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace eigsolve
