#include "xml_well_formed.h"

#include <cctype>
#include <set>
#include <vector>

namespace gemmscope::report::testing {
namespace {

class Checker {
 public:
  explicit Checker(std::string_view xml) : xml_(xml) {}

  std::string check() {
    bool root_seen = false;
    while (pos_ < xml_.size()) {
      if (xml_[pos_] == '<') {
        if (!markup(root_seen))
          return error_;
      } else {
        const size_t start = pos_;
        while (pos_ < xml_.size() && xml_[pos_] != '<')
          ++pos_;
        const std::string_view text = xml_.substr(start, pos_ - start);
        if (open_.empty() && text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
          return fail(start, "text outside the root element");
        }
        if (!entities_valid(text, start))
          return error_;
      }
    }
    if (!open_.empty())
      return fail(pos_, "element <" + open_.back() + "> is never closed");
    if (!root_seen)
      return fail(0, "no root element");
    return "";
  }

 private:
  std::string fail(size_t at, const std::string& what) {
    error_ = what + " at byte " + std::to_string(at);
    return error_;
  }

  bool reject(size_t at, const std::string& what) {
    fail(at, what);
    return false;
  }

  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == ':';
  }

  std::string name() {
    const size_t start = pos_;
    if (pos_ < xml_.size() && (std::isalpha(static_cast<unsigned char>(xml_[pos_])) ||
                               xml_[pos_] == '_' || xml_[pos_] == ':')) {
      while (pos_ < xml_.size() && name_char(xml_[pos_]))
        ++pos_;
    }
    return std::string(xml_.substr(start, pos_ - start));
  }

  void skip_spaces() {
    while (pos_ < xml_.size() && std::isspace(static_cast<unsigned char>(xml_[pos_])))
      ++pos_;
  }

  bool entities_valid(std::string_view text, size_t offset) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '<')
        return reject(offset + i, "'<' inside text or an attribute");
      if (text[i] != '&')
        continue;
      const size_t end = text.find(';', i);
      if (end == std::string_view::npos)
        return reject(offset + i, "'&' without ';'");
      const std::string_view entity = text.substr(i + 1, end - i - 1);
      static const std::set<std::string_view> kNamed = {"amp", "lt", "gt", "quot", "apos"};
      const bool numeric = entity.size() > 1 && entity[0] == '#';
      if (!kNamed.count(entity) && !numeric) {
        return reject(offset + i, "unknown entity &" + std::string(entity) + ";");
      }
      i = end;
    }
    return true;
  }

  // Everything that starts with '<'. Returns false with error_ set.
  bool markup(bool& root_seen) {
    const size_t start = pos_;
    if (xml_.substr(pos_, 4) == "<!--") {
      const size_t end = xml_.find("-->", pos_ + 4);
      if (end == std::string_view::npos)
        return reject(start, "unterminated comment");
      pos_ = end + 3;
      return true;
    }
    if (xml_.substr(pos_, 2) == "<?") {
      const size_t end = xml_.find("?>", pos_ + 2);
      if (end == std::string_view::npos)
        return reject(start, "unterminated <?...?>");
      pos_ = end + 2;
      return true;
    }
    if (xml_.substr(pos_, 2) == "</") {
      pos_ += 2;
      const std::string closing = name();
      skip_spaces();
      if (pos_ >= xml_.size() || xml_[pos_] != '>')
        return reject(start, "malformed end tag");
      ++pos_;
      if (open_.empty() || open_.back() != closing) {
        return reject(start,
                      "</" + closing + "> does not close " +
                          (open_.empty() ? std::string("anything") : "<" + open_.back() + ">"));
      }
      open_.pop_back();
      return true;
    }
    ++pos_;
    const std::string element = name();
    if (element.empty())
      return reject(start, "'<' not followed by a tag name");
    if (open_.empty() && root_seen)
      return reject(start, "a second root element");
    std::set<std::string> attributes;
    while (true) {
      const size_t before_space = pos_;
      skip_spaces();
      if (pos_ >= xml_.size())
        return reject(start, "unterminated tag <" + element + ">");
      if (xml_.substr(pos_, 2) == "/>") {
        pos_ += 2;
        root_seen = true;
        return true;
      }
      if (xml_[pos_] == '>') {
        ++pos_;
        root_seen = true;
        open_.push_back(element);
        return true;
      }
      if (pos_ == before_space)
        return reject(pos_, "attributes must be separated by spaces");
      const std::string attribute = name();
      if (attribute.empty())
        return reject(pos_, "bad attribute name in <" + element + ">");
      if (!attributes.insert(attribute).second) {
        return reject(pos_, "attribute " + attribute + " repeated");
      }
      skip_spaces();
      if (pos_ >= xml_.size() || xml_[pos_] != '=')
        return reject(pos_, "attribute without '='");
      ++pos_;
      skip_spaces();
      if (pos_ >= xml_.size() || (xml_[pos_] != '"' && xml_[pos_] != '\'')) {
        return reject(pos_, "unquoted attribute value");
      }
      const char quote = xml_[pos_++];
      const size_t value_end = xml_.find(quote, pos_);
      if (value_end == std::string_view::npos)
        return reject(pos_, "unterminated attribute");
      if (!entities_valid(xml_.substr(pos_, value_end - pos_), pos_))
        return false;
      pos_ = value_end + 1;
    }
  }

  std::string_view xml_;
  size_t pos_ = 0;
  std::vector<std::string> open_;
  std::string error_;
};

}  // namespace

std::string xml_well_formedness_error(std::string_view xml) {
  return Checker(xml).check();
}

}  // namespace gemmscope::report::testing
