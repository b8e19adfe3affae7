#pragma once

#include <boost/program_options/options_description.hpp>
#include <memory>
#include <string>
#include <vector>

namespace ipcbench::cli {

// The one table of ipchost's options and subcommands. parse_command_line parses with it, and
// --help, the man page (--help --format man), the README's option section (--help --format
// markdown) and the bash completion (--help --format words) are rendered from it, so they
// cannot disagree (tests/e2e/test_option_reference.cpp checks the README and the man page).
struct option_group {
    std::string caption;
    std::shared_ptr<boost::program_options::options_description> options;
};

struct subcommand_doc {
    const char *name;      // "compare"
    const char *synopsis;  // "BASE.json NEW.json [--fail-on-regression PERCENT]"
    const char *text;      // one paragraph
    const char *examples;  // command lines, one a line, each with a `# what it does` comment
};

const std::vector<subcommand_doc> &subcommand_docs();

// Notes after the options: plugin folders, size lists, exit codes.
const char *reference_notes();

// The environment variables ipchost and its kits read, each with what it does: --help's notes,
// the man page's ENVIRONMENT (tests/docs/drift.sh checks that every one read is here).
struct environment_doc {
    const char *name;
    const char *text;
};
const std::vector<environment_doc> &environment_docs();

// Command lines for the --help's and the man page's EXAMPLES, one a line with its comment.
const char *run_examples();

// --help as printed on a terminal.
std::string render_help_text(const std::vector<option_group> &groups);
// `ipchost SUBCOMMAND --help`: that subcommand's synopsis, what it does, the options its synopsis
// names (from the same table) and its examples.
std::string render_subcommand_help(const subcommand_doc &doc,
                                   const std::vector<option_group> &groups);
// The README section between its "options:begin" and "options:end" markers.
std::string render_markdown(const std::vector<option_group> &groups);
// ipchost(1), roff with the man macros.
std::string render_man_page(const std::vector<option_group> &groups);
// Every long option and subcommand, one per line (for shell completion).
std::string render_words(const std::vector<option_group> &groups);

}  // namespace ipcbench::cli
