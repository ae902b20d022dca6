// SPDX-License-Identifier: Apache-2.0
// Renders the option tables (option_table.h) as --help text, roff man pages, markdown and a bash
// completion script: every option shown anywhere comes from a table entry.
#include "cli/option_docs.h"

#include "channels/identity_channels.h"
#include "cli/option_table.h"

namespace vtscope {
namespace {

constexpr size_t kWidth = 100;      // help text lines at most this wide
constexpr size_t kTextColumn = 30;  // where an option's text starts

// --help is taken by every command's parser (parse_command) and by vtscope itself; it is shown
// with the table's options.
OptionSpec help_option() { return option("help", 'h', "", ValueKind::kFlag, nullptr, "show this help"); }

std::vector<OptionSpec> shown_options(const CommandSpec& spec) {
    std::vector<OptionSpec> options = spec.options;
    options.push_back(help_option());
    return options;
}

std::vector<OptionSpec> global_options() {
    return {help_option(), option("version", 0, "", ValueKind::kFlag, nullptr, "show the version")};
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return parts;
        start = end + 1;
    }
}

// The text with its default: what every rendering shows for an option.
std::string full_help(const OptionSpec& o) {
    return o.default_text.empty() ? o.help : o.help + " (default: " + o.default_text + ")";
}

// "-p, --pid PID" (or "    --ready-file FILE").
std::string option_label(const OptionSpec& o) {
    std::string label = o.short_name ? std::string("-") + o.short_name + ", " : "    ";
    label += "--" + o.name;
    if (!o.value_name.empty()) label += " " + o.value_name;
    return label;
}

// Words of text filled into lines of at most kWidth, each line after the first indented by indent;
// the first continues `line` (already holding its own indent). '\n' in text starts a new line.
std::string fill_text(std::string line, const std::string& text, size_t indent) {
    std::string out;
    const std::string pad(indent, ' ');
    for (const std::string& segment : split(text, '\n')) {
        bool fresh = true;
        for (const std::string& word : split(segment, ' ')) {
            if (word.empty()) continue;
            if (!fresh && line.size() + 1 + word.size() > kWidth) {
                out += line + "\n";
                line = pad;
                fresh = true;
            }
            line += (fresh ? "" : " ") + word;
            fresh = false;
        }
        out += line + "\n";
        line = pad;
    }
    return out;
}

std::string options_help(const std::vector<OptionSpec>& options) {
    std::string out;
    for (const OptionSpec& o : options) {
        std::string line = "  " + option_label(o);
        if (line.size() + 1 > kTextColumn) {
            out += line + "\n";
            line.clear();
        }
        line.resize(kTextColumn, ' ');
        out += fill_text(line, full_help(o), kTextColumn);
    }
    return out;
}

std::string sections_help(const CommandSpec& spec) {
    std::string out;
    for (const TextSection& s : spec.sections) {
        out += "\n" + s.title + ":\n";
        for (const std::string& paragraph : split(s.text, '\n'))
            if (!paragraph.empty()) out += fill_text("  ", paragraph, 2);
    }
    if (!spec.examples.empty()) out += "\nExamples:\n";
    for (const Example& e : spec.examples) out += "  " + e.command + "\n" + fill_text("      ", e.what, 6);
    return out;
}

const char* kAttachingCommands = "trace, stat, profile, block and top need";

const char* kAbout =
    "Attributes OS events of a JVM to the Java virtual thread mounted at that instant and to its OpenTelemetry "
    "trace context, on a stock JDK 21+ (HotSpot), with no agent in the target.";

std::string global_usage() {
    std::string out = "usage: vtscope COMMAND [OPTIONS]\n\n" + fill_text("", kAbout, 0) + "\nCommands:\n";
    for (const CommandSpec& spec : command_specs()) {
        std::string line = "  " + spec.name;
        line.resize(12, ' ');
        out += fill_text(line, spec.summary, 12);
    }
    out += "\nRun 'vtscope COMMAND --help' for a command's options (man vtscope-COMMAND).\n\nOptions:\n";
    out += options_help(global_options());
    for (const TextSection& s : attaching_sections(kAttachingCommands))
        out += "\n" + s.title + ":\n" + fill_text("  ", s.text, 2);
    return out;
}

}  // namespace

std::string usage(const std::string& command) {
    const CommandSpec* spec = find_command(command);
    if (!spec) return global_usage();
    std::string out = "usage: vtscope " + spec->name + " " + spec->synopsis + "\n\n";
    out += fill_text("", spec->description, 0);
    out += "\nOptions:\n" + options_help(shown_options(*spec));
    return out + sections_help(*spec);
}

namespace {

// Text safe in roff: backslashes and hyphens escaped, no line starting a request.
std::string roff(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    std::string safe;
    for (const std::string& line : split(out, '\n')) {
        if (!safe.empty()) safe += "\n";
        safe += (!line.empty() && (line[0] == '.' || line[0] == '\'') ? "\\&" : "") + line;
    }
    return safe;
}

std::string upper(std::string text) {
    for (char& c : text)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return text;
}

std::string roff_options(const std::vector<OptionSpec>& options) {
    std::string out;
    for (const OptionSpec& o : options) {
        out += ".TP\n";
        if (o.short_name) out += "\\fB" + roff(std::string("-") + o.short_name) + "\\fR, ";
        out += "\\fB" + roff("--" + o.name) + "\\fR";
        if (!o.value_name.empty()) out += " \\fI" + roff(o.value_name) + "\\fR";
        std::string text;
        for (const std::string& line : split(full_help(o), '\n')) text += (text.empty() ? "" : "\n.br\n") + roff(line);
        out += "\n" + text + "\n";
    }
    return out;
}

std::string roff_paragraphs(const std::string& text) {
    std::string out;
    for (const std::string& paragraph : split(text, '\n'))
        if (!paragraph.empty()) out += (out.empty() ? "" : ".PP\n") + roff(paragraph) + "\n";
    return out;
}

std::string see_also(const std::string& except) {
    std::string out = ".SH SEE ALSO\n";
    std::string refs;
    if (!except.empty()) refs = "\\fBvtscope\\fR(1)";
    for (const CommandSpec& spec : command_specs())
        if (spec.name != except)
            refs += (refs.empty() ? "" : ", ") + std::string("\\fBvtscope\\-") + spec.name + "\\fR(1)";
    return out + refs + "\n";
}

std::string global_man() {
    std::string out = ".\\\" Generated by vtscope --man from its option tables; do not edit.\n";
    out +=
        ".TH VTSCOPE 1 \"\" \"vtscope\" \"vtscope manual\"\n.SH NAME\nvtscope \\- attribute OS events of a JVM to "
        "virtual threads and trace contexts\n.SH SYNOPSIS\n.B vtscope\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
    out += ".SH DESCRIPTION\n" + roff(kAbout) + "\n.SH COMMANDS\n";
    for (const CommandSpec& spec : command_specs())
        out += ".TP\n\\fBvtscope " + roff(spec.name) + "\\fR " + roff(spec.synopsis) + "\n" + roff(spec.summary) +
               "; see \\fBvtscope\\-" + roff(spec.name) + "\\fR(1)\n";
    out += ".SH OPTIONS\n" + roff_options(global_options());
    for (const TextSection& s : attaching_sections(kAttachingCommands))
        out += ".SH " + roff(upper(s.title)) + "\n" + roff_paragraphs(s.text);
    return out + see_also("");
}

}  // namespace

std::string man_page(const std::string& command) {
    const CommandSpec* spec = find_command(command);
    if (!spec) return global_man();
    std::string out = ".\\\" Generated by vtscope " + spec->name + " --man from its option table; do not edit.\n";
    out += ".TH VTSCOPE\\-" + upper(spec->name) + " 1 \"\" \"vtscope\" \"vtscope manual\"\n";
    out += ".SH NAME\nvtscope\\-" + spec->name + " \\- " + roff(spec->summary) + "\n";
    out += ".SH SYNOPSIS\n.B vtscope " + spec->name + "\n" + roff(spec->synopsis) + "\n";
    out += ".SH DESCRIPTION\n" + roff_paragraphs(spec->description);
    out += ".SH OPTIONS\n" + roff_options(shown_options(*spec));
    for (const TextSection& s : spec->sections) out += ".SH " + roff(upper(s.title)) + "\n" + roff_paragraphs(s.text);
    if (!spec->examples.empty()) out += ".SH EXAMPLES\n";
    for (const Example& e : spec->examples) out += ".TP\n.B " + roff(e.command) + "\n" + roff(e.what) + "\n";
    return out + see_also(spec->name);
}

namespace {

std::string markdown_options(const std::vector<OptionSpec>& options) {
    std::string out;
    for (const OptionSpec& o : options) {
        std::vector<std::string> lines = split(full_help(o), '\n');
        out += "- `" + (o.short_name ? std::string("-") + o.short_name + "`, `" : "") + "--" + o.name +
               (o.value_name.empty() ? "" : " " + o.value_name) + "`: " + lines[0] + "\n";
        for (size_t k = 1; k < lines.size(); k++) out += "  - " + lines[k] + "\n";
    }
    return out;
}

std::string markdown_sections(const std::vector<TextSection>& sections) {
    std::string out;
    for (const TextSection& s : sections) out += "\n## " + s.title + "\n\n" + s.text + "\n";
    return out;
}

std::string global_markdown() {
    std::string out = "<!-- Generated by vtscope --markdown from its option tables; do not edit. -->\n";
    out += "# vtscope(1)\n\nvtscope - attribute OS events of a JVM to virtual threads and trace contexts\n\n";
    out += "## Synopsis\n\n    vtscope COMMAND [OPTIONS]\n\n## Description\n\n" + std::string(kAbout) + "\n\n";
    out += "## Commands\n\n";
    for (const CommandSpec& spec : command_specs())
        out += "- [`vtscope " + spec.name + " " + spec.synopsis + "`](vtscope-" + spec.name + ".md): " + spec.summary +
               "\n";
    out += "\n## Options\n\n" + markdown_options(global_options());
    return out + markdown_sections(attaching_sections(kAttachingCommands));
}

}  // namespace

std::string markdown_page(const std::string& command) {
    const CommandSpec* spec = find_command(command);
    if (!spec) return global_markdown();
    std::string out =
        "<!-- Generated by vtscope " + spec->name + " --markdown from its option table; do not edit. -->\n";
    out += "# vtscope-" + spec->name + "(1)\n\nvtscope-" + spec->name + " - " + spec->summary + "\n\n";
    out += "## Synopsis\n\n    vtscope " + spec->name + " " + spec->synopsis + "\n\n";
    out += "## Description\n\n" + spec->description + "\n\n## Options\n\n" + markdown_options(shown_options(*spec));
    out += markdown_sections(spec->sections);
    if (!spec->examples.empty()) out += "\n## Examples\n";
    for (const Example& e : spec->examples) out += "\n" + e.what + ":\n\n    " + e.command + "\n";
    return out + "\nSee also [vtscope(1)](vtscope.md).\n";
}

namespace {

std::string words(const std::vector<std::string>& list) {
    std::string out;
    for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string alternatives(const std::vector<std::string>& forms) {
    std::string alts;
    for (const std::string& f : forms) alts += (alts.empty() ? "" : "|") + f;
    return alts;
}

// One command's case: the value of the option before the cursor, else the command's options.
std::string completion_case(const CommandSpec& spec) {
    std::vector<std::string> names, paths, takes_value;
    std::string enums;
    for (const OptionSpec& o : shown_options(spec)) {
        std::vector<std::string> forms = {"--" + o.name};
        if (o.short_name) forms.push_back(std::string("-") + o.short_name);
        names.insert(names.end(), forms.begin(), forms.end());
        if (o.kind == ValueKind::kFlag) continue;
        if (o.kind == ValueKind::kPath)
            paths.insert(paths.end(), forms.begin(), forms.end());
        else if (o.kind == ValueKind::kEnum)
            enums += "                " + alternatives(forms) + ") COMPREPLY=($(compgen -W \"" + words(o.choices) +
                     "\" -- \"$cur\")); return ;;\n";
        else
            takes_value.insert(takes_value.end(), forms.begin(), forms.end());
    }
    std::string out = "        " + spec.name + ")\n            case \"$prev\" in\n";
    if (!paths.empty())
        out += "                " + alternatives(paths) + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    out += enums;
    if (!takes_value.empty()) out += "                " + alternatives(takes_value) + ") return ;;\n";
    out += "            esac\n";
    if (!spec.positional.empty())
        out += "            if [[ $cur != -* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n";
    return out + "            COMPREPLY=($(compgen -W \"" + words(names) + "\" -- \"$cur\")) ;;\n";
}

}  // namespace

std::string bash_completion() {
    std::vector<std::string> commands;
    for (const CommandSpec& spec : command_specs()) commands.push_back(spec.name);
    std::string out = "# bash completion for vtscope; generated by vtscope --completion from its option tables.\n";
    out += "_vtscope() {\n    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
    out += "    if ((COMP_CWORD == 1)); then\n        COMPREPLY=($(compgen -W \"" + words(commands) +
           " help --help --version\" -- \"$cur\"))\n        return\n    fi\n";
    out += "    case ${COMP_WORDS[1]} in\n";
    for (const CommandSpec& spec : command_specs()) out += completion_case(spec);
    return out + "    esac\n}\ncomplete -F _vtscope vtscope\n";
}

}  // namespace vtscope
