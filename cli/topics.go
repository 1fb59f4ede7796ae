package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shushlist/shush/config"
)

// The help topic "shush help environment" and the "Output" section of
// each command's help.

// envVar is a variable of the environment that shush reads, for the
// environment topic. The names come from the constants of the code that
// reads them where there are some; a test holds the list and the code's
// reads together.
type envVar struct{ name, doc string }

// clientEnv are the variables of the UI and the CLI, in the order a
// reader needs them.
var clientEnv = []envVar{
	{config.EnvProfile, "the profile of the config file to use (as --profile)"},
	{config.EnvBaseURL, "the service's base URL (as --base-url); unset everywhere, shush works on the local list"},
	{config.EnvAPIKey, "the API key for that service (as --api-key, without showing it in the process list)"},
	{config.EnvDB, "the local list's database (the embedded default), and the database of serve and keys (--db)"},
	{config.EnvConfigDir, "the directory of config.toml, on every system (before XDG_CONFIG_HOME)"},
	{config.EnvExportDir, "where the UI writes exports when no directory is named"},
	{config.EnvResendAPIKey, "read only when no base URL and no key are set anywhere: then shush talks to the hosted API (RESEND_BASE_URL, else " + config.ResendBaseURL + ") with this key, and says so on stderr and in the UI"},
	{config.EnvResendBaseURL, "the hosted API's address, with RESEND_API_KEY"},
	{envDebug, "api: trace every request and answer on stderr (method, URL, status, headers, bodies), with the API key and URL passwords redacted"},
	{envPager, "the pager of long listings on a terminal (a dry run's, a removal's, an undo's addresses); before PAGER, default less; cat or empty turns paging off"},
	{"PAGER", "the pager when SHUSH_PAGER is unset"},
}

// placeEnv are the directories shush keeps its files in.
var placeEnv = []envVar{
	{"XDG_CONFIG_HOME", "config.toml goes in $XDG_CONFIG_HOME/shush (on every system); else ~/.config/shush, ~/Library/Application Support/shush, %AppData%\\shush"},
	{"XDG_DATA_HOME", "the local list's database and key go in $XDG_DATA_HOME/shush; else ~/.local/share/shush"},
	{"XDG_STATE_HOME", "the runs' journals go in $XDG_STATE_HOME/shush/journal; else ~/.local/state/shush"},
	{"LocalAppData", "on Windows, the data and state directory's base when no XDG_ variable is set"},
	{"XDG_DOWNLOAD_DIR", "not a variable of the environment but of ~/.config/user-dirs.dirs (Linux, BSD): where the UI writes exports, when SHUSH_EXPORT_DIR is unset"},
	{"XDG_DOCUMENTS_DIR", "of user-dirs.dirs too: where exports go when there is no download directory"},
}

// terminalEnv are what the UI asks of its terminal.
var terminalEnv = []envVar{
	{"NO_COLOR", "set to anything: the UI and the tables draw without colour"},
	{"TERM", "the terminal's kind; dumb, screen* and tmux* skip the UI's background-colour query"},
	{"CI", "set: the UI never queries the terminal (as under a CI runner)"},
	{"TMUX", "the UI's copy goes to tmux's buffer (and the system clipboard through it)"},
	{"STY", "under GNU screen, the UI's copy (OSC 52) is wrapped for screen"},
	{"SSH_CONNECTION", "set (or SSH_TTY): the UI copies with OSC 52 to the terminal you sit at, not this machine's clipboard"},
	{"SSH_TTY", "as SSH_CONNECTION"},
	{"LESS", "less's options; unset, the pager runs with LESS=FRX (quit when the text fits, keep it on the screen)"},
	{"GOGC", "the garbage collector's target; set, a batch run keeps it rather than its own"},
}

// envDebug turns on the trace of requests; envPager names the pager.
const (
	envDebug = "SHUSH_DEBUG"
	envPager = "SHUSH_PAGER"
)

// environmentCommand is the help topic "shush help environment". The
// variables of serve are its flags' (SHUSH_<FLAG>), listed from serve's
// own flags when the help is shown.
func (a *app) environmentCommand() *cobra.Command {
	return a.helpTopic("environment", "The environment variables shush reads", runEnvironment)
}

// runEnvironment prints the environment topic.
func runEnvironment(_ context.Context, o *topicOptions) error {
	_, err := fmt.Fprint(o.io.Out, environmentHelp(o.Root))
	return err
}

// environmentHelp is the text of the environment topic.
func environmentHelp(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(`Environment variables shush reads. A flag wins over its variable, and a
variable over the config file (shush config shows where each setting came
from).

`)
	section := func(title string, vars []envVar) {
		b.WriteString(title + "\n")
		for _, v := range vars {
			fmt.Fprintf(&b, "  %s\n", v.name)
			for _, line := range wrap(v.doc, 72) {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		}
		b.WriteString("\n")
	}
	section("The UI and the CLI:", clientEnv)
	section("Where files are kept:", placeEnv)
	section("The terminal and the runtime:", terminalEnv)
	section("shush serve (each flag; one on the command line wins):", serveEnv(root))
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// serveEnv lists the SHUSH_<FLAG> variable of each flag of serve.
func serveEnv(root *cobra.Command) []envVar {
	serve, _, err := root.Find([]string{"serve"})
	if err != nil || serve == root {
		return nil
	}
	var out []envVar
	serve.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		name := envName(f.Name)
		out = append(out, envVar{name, "--" + f.Name + ": " + strings.TrimSuffix(f.Usage, " (env "+name+")")})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// outputs is the JSON each command prints with --json (or when stdout is
// a pipe or a file), by command path below "shush"; "" for commands that
// print none. A test walks the commands: each has its line.
var outputs = map[string]string{
	"suppressions list":          `{"object":"list","has_more":bool,"data":[{"id","email","origin","source_id","created_at"}]} (--all: every page in one data array)`,
	"suppressions get":           `{"object":"suppression","id","email","origin","source_id","created_at","note","expires_at","evidence":{"provider","event_id","message_id","kind","status","diagnostic","reporting_mta","reported_at"} or null,"erased","erased_domain"}`,
	"suppressions add":           `{"object":"suppression","id","email","created":bool}`,
	"suppressions remove":        `{"object":"suppression","id","deleted":true}`,
	"suppressions batch add":     runDocShape + `; with --dry-run ` + planShape,
	"suppressions batch remove":  runDocShape + `; with --dry-run ` + planShape,
	"suppressions check":         `{"object":"list","data":[{"email","listed":bool,"listed_by","erased","erased_domain","id","origin","created_at","error"}],"left_out":[{"line","raw","value","reason"}],"invalid":[{"line","raw","problem"}]}`,
	"suppressions export":        `not JSON: CSV with the header id,email,origin,source_id,created_at,note,expires_at,evidence_provider,…,evidence_reported_at,erased_domain, or with --format ndjson one {"id","email","origin","source_id","created_at","note","expires_at","evidence"} a line`,
	"runs list":                  `{"object":"list","data":[{"id","mode","target","reference","source","input","created","updated","entries","invalid","left_out","duplicates","segments","values_sha256","state","counts":{outcome:n},"note","undo_of"}]}`,
	"runs show":                  runDocShape,
	"runs undo":                  runDocShape + `; with --dry-run {"dry_run":true,"undo_of","mode","target","notes":[…],"entries":[{"email","id","origin"}]}`,
	"runs resume":                runDocShape,
	"runs prune":                 `{"pruned":n,"older_than_days":n}`,
	"ticket read":                ticketShape,
	"audit":                      `{"object":"list","has_more":bool,"data":[{"object":"audit_entry","id","type","created_at","suppression":{…},"key":{"id","name"},"agent":{"id","name"},"reference","request_id"}]} (key or agent null)`,
	"audit prune":                `{"audit_entries":n,"webhook_events":n,"intake_events":n,"before"}`,
	"suppressions erase":         `{"object":"list","data":[{"object":"suppression","id","email","erased":"erased:v1:<hash>","listed":bool,"already":bool}],"local_files_rewritten":[paths]}`,
	"team erasure-secret show":   `[{"version","created_at","entries"}]`,
	"team erasure-secret rotate": `{"team","version"}`,
	"webhooks add":               `{"object":"webhook","id","signing_secret"}`,
	"webhooks list":              `{"object":"list","has_more":bool,"data":[{"id","endpoint","created_at","status","events"}]}`,
	"webhooks show":              `{"object":"webhook","id","endpoint","created_at","status","events","signing_secret" (with --secret)}`,
	"webhooks update":            `{"object":"webhook","id"}`,
	"webhooks enable":            `{"object":"webhook","id"}`,
	"webhooks disable":           `{"object":"webhook","id"}`,
	"webhooks rotate":            `{"object":"webhook","id","signing_secret"}`,
	"webhooks remove":            `{"object":"webhook","id","deleted":true}`,
	"webhooks deliveries":        `{"object":"list","has_more":bool,"data":[{"id","type","created_at","status"}]}; with --event {"event":{…,"next_attempt_at","payload"},"attempts":{"object":"list","has_more","data":[{"id","http_status_code","response","sent_at"}]}}`,
	"webhooks replay":            `{"object":"webhook_event","id","status"}`,
	"keys create":                `the key alone on stdout; with --json {"id","key","team","name","read_only","override","import"}`,
	"keys list":                  `[{"id","team","name","read_only","override","import","created_at","revoked_at"}]`,
	"agents add":                 `{"object":"agent","id","name","team","fingerprint","read_only","override","created_at"}`,
	"agents list":                `[{"object":"agent","id","name","team","fingerprint","read_only","override","created_at"}]`,
	"agents remove":              `{"object":"agent","id","deleted":true}`,
	"team show":                  `{"object":"team","name","protected":[…],"complaint_removal","intake":{"soft_bounce_threshold","soft_bounce_window","soft_bounce_expiry"},"erasure_keeps_domain"}`,
	"team set":                   `{"object":"team","name","protected":[…],"complaint_removal","intake":{"soft_bounce_threshold","soft_bounce_window","soft_bounce_expiry"},"erasure_keeps_domain"}`,
	"intake create":              `{"object":"intake","id","provider","name","url","topic_arn","created_at"}`,
	"intake list":                `{"object":"list","data":[{"id","provider","name","url","topic_arn","created_at"}]}`,
	"intake delete":              `{"object":"intake","id","deleted":true}`,
	"intake review":              `{"object":"list","has_more":bool,"data":[{"id","email","provider","evidence":{…},"reason","received_at","decision","decided_at","decided_by","entry_id"}]}`,
	"intake decide":              `{"object":"intake_review","id","email","provider","evidence":{…},"reason","received_at","decision","decided_at","decided_by","entry_id"}`,
	"bounces ingest":             `{"object":"list","dry_run":bool,"messages":n,"data":[{"source","email","kind","status","shape","event_id","decision","id","reason"}],"unreadable":[{"source","error"}]}`,
	"keys revoke":                `{"id","revoked":true}`,
	"db copy":                    `{"from","to","tables":[{"table","rows","checksum"}],"rows":n,"replaced":n,"seconds":n}`,
	"sync":                       `{"here","there","direction","applied":bool,"plan":{"first":bool,"since","new_here":[{"email","entry"}],"new_there":[…],"removed_here":[…],"removed_there":[…],"differ":[{"email","here","there","differs":[…]}],"same":n,"expired":[…]},"actions":{"add_there":[…],"add_here":[…],"remove_there":[…],"remove_here":[…]},"requests":{"here":n,"there":n},"runs":[{"id","action","state","counts":{outcome:n}}]}`,
	"config":                     `{"profile":{"value","source"},"base_url":{"value","source"},"api_key":{"value" (masked),"source"},"db":{"value","source"},"target","config_file","config_file_found","journal_dir"}`,
	"config set-profile":         "",
	"doctor":                     `{"ok":bool,"checks":[{"name","ok":bool,"detail"}],"version"}`,
	"serve":                      "",
	"version":                    `{"version","revision","time","modified":bool,"go","platform"}`,
	"man":                        "",
	"completion bash":            "",
	"completion zsh":             "",
	"completion fish":            "",
	"completion powershell":      "",
}

// The JSON of a batch run and of a dry run's plan, shared by the batch
// and runs commands.
const (
	runDocShape = `{"object":"list","data":[{"object":"suppression","id","email","outcome" (added, already_listed, removed, not_listed, unverified, failed, unsent),"deleted":bool,"error","reason","batch"}],"invalid":[{"line","entry","problem"}],"left_out":[{"line","email","reason"}]}`
	planShape   = `{"dry_run":true,"mode","target","format","entries","valid","duplicates","invalid":[…],"left_out":[…],"batches","batch_size","values":[every address or ID it would send]}`
)

// addOutputs puts an "Output" section with its JSON shape at the end of
// the long help of every command outputs names.
func addOutputs(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.Name()), " ")
		if shape, ok := outputs[path]; ok && shape != "" {
			long := c.Long
			if long == "" {
				long = c.Short + "."
			}
			c.Long = long + "\n\nOutput (--json, -q, or when stdout is a pipe or a file):\n  " + shape
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
