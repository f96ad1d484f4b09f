// Every relative link of the documentation (README.md, docs/*.md,
// nets/README.md) names a file or folder of the repository, so the
// repository stands alone. Links to the web and to anchors within a page are
// not checked; fenced code blocks and inline code are not links.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_toolkit.h"

namespace volkhv {
namespace {

namespace fs = std::filesystem;
using ::volkhv::testing::ScopedTempDir;
using ::volkhv::testing::Slurp;
using ::volkhv::testing::WriteFile;

// The markdown text without fenced code blocks and inline code spans.
std::string WithoutCode(const std::string& text) {
  std::string out;
  bool fenced = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line.compare(indent, 3, "```") == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    out += std::regex_replace(line, std::regex("`[^`]*`"), "") + "\n";
  }
  return out;
}

// The targets of the page's links and images that point into the
// repository, with any #anchor removed.
std::vector<std::string> RelativeLinks(const std::string& markdown) {
  static const std::regex kLink(R"(\]\(([^)\s]+)(\s+"[^"]*")?\))");
  const std::string text = WithoutCode(markdown);
  std::vector<std::string> links;
  for (std::sregex_iterator it(text.begin(), text.end(), kLink), end; it != end;
       ++it) {
    std::string target = (*it)[1];
    if (target.find("://") != std::string::npos ||
        target.starts_with("mailto:") || target.starts_with("#")) {
      continue;
    }
    target = target.substr(0, target.find('#'));
    links.push_back(target);
  }
  return links;
}

// The links of `page` that name nothing, as "page: target".
std::vector<std::string> BrokenLinks(const fs::path& page) {
  std::vector<std::string> broken;
  for (const std::string& target : RelativeLinks(Slurp(page.string()))) {
    if (!fs::exists(page.parent_path() / target)) {
      broken.push_back(page.string() + ": " + target);
    }
  }
  return broken;
}

std::vector<fs::path> DocumentationPages() {
  const fs::path root = VOLKHV_SOURCE_DIR;
  std::vector<fs::path> pages = {root / "README.md", root / "nets/README.md"};
  for (const fs::directory_entry& entry :
       fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

TEST(DocsLinksTest, FindsLinksAndImagesButNotCodeOrTheWeb) {
  const std::string page =
      "See [the rules](docs/tavreli-rules.md#10-position-notation-tfen) and\n"
      "![a board](docs/web-tower.png \"title\"), [lc0](https://lczero.org),\n"
      "[above](#set-up), `[not](a-link.md)` and\n"
      "```\n[nor](this.md)\n```\n[proto](proto)\n";
  EXPECT_EQ(RelativeLinks(page),
            (std::vector<std::string>{"docs/tavreli-rules.md",
                                      "docs/web-tower.png", "proto"}));
}

TEST(DocsLinksTest, ABrokenLinkIsReported) {
  ScopedTempDir dir;
  WriteFile(dir.File("there.md"), "# there\n");
  WriteFile(dir.File("page.md"),
            "[ok](there.md) [ok too](there.md#there) [gone](missing.md)\n");
  EXPECT_EQ(BrokenLinks(dir.File("page.md")),
            std::vector<std::string>{dir.File("page.md") + ": missing.md"});
}

TEST(DocsLinksTest, EveryRelativeLinkOfTheDocumentationResolves) {
  const std::vector<fs::path> pages = DocumentationPages();
  // README.md, nets/README.md and the pages of docs/.
  ASSERT_GE(pages.size(), 10u);
  size_t links = 0;
  for (const fs::path& page : pages) {
    links += RelativeLinks(Slurp(page.string())).size();
    for (const std::string& broken : BrokenLinks(page)) {
      ADD_FAILURE() << "broken link: " << broken;
    }
  }
  EXPECT_GT(links, 50u);  // the checker sees the links it checks
}

}  // namespace
}  // namespace volkhv
