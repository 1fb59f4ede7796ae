package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/atomicfile"
)

// The commands of one-click unsubscribe (RFC 8058): unsubscribe-key
// fetches the team's key a sender mints tokens with, unsubscribe-link
// mints one. Both are self-contained: they need only the client and the
// token rules of package api.

// unsubscribeKeyOptions are what unsubscribe-key is told.
type unsubscribeKeyOptions struct {
	output string
}

func (a *app) unsubscribeKeyCommand() *cobra.Command {
	var o unsubscribeKeyOptions
	cmd := &cobra.Command{
		Use:   "unsubscribe-key [--output FILE]",
		Short: "Print the team's key for one-click unsubscribe links",
		Long: `Print the team's unsubscribe key: the secret a sender mints one-click
unsubscribe tokens with (RFC 8058), offline, for the List-Unsubscribe header
of its mail. Anyone who holds it can list any address on the team's list, so
it is answered only to a read-write key; keep it as you keep an API key.
The service makes it on first use and never logs it.

--output writes it to a file with mode 0600 (and prints no secret) rather
than to stdout. shush unsubscribe-link --key-file reads that file; the
algorithm and short Go and JavaScript snippets are in docs/one-click.md.

Output (--json, -q, or when stdout is a pipe or a file):
  {"object":"unsubscribe_key","team","key"}; with --output {"object":"unsubscribe_key","team","file"}`,
		Example: `  shush unsubscribe-key --output ~/.config/shush/unsubscribe.key
  shush unsubscribe-key --json --jq .key`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return a.onService(ctx, func(conn *connection) error {
				k, err := conn.Client.UnsubscribeKey(ctx)
				if err != nil {
					if client.IsUnsupported(err) {
						return fmt.Errorf("%s offers no one-click unsubscribe (GET /team/unsubscribe-key): %w", conn.Target, err)
					}
					return err
				}
				if o.output != "" {
					if err := atomicfile.WriteFile(o.output, []byte(k.Key+"\n"), 0o600); err != nil {
						return fmt.Errorf("write the unsubscribe key: %w", err)
					}
					if a.output().json {
						return writeJSON(a.io.Out, map[string]string{"object": api.ObjectUnsubscribeKey, "team": k.Team, "file": o.output})
					}
					_, err := fmt.Fprintf(a.io.Out, "Wrote team %s's unsubscribe key to %s (mode 0600).\n", safeText(k.Team), safeText(o.output))
					return err
				}
				if a.output().json {
					return writeJSON(a.io.Out, k)
				}
				_, err = fmt.Fprintln(a.io.Out, k.Key)
				return err
			})
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "write the key to this file (mode 0600) rather than to stdout")
	return cmd
}

// unsubscribeLinkOptions are what unsubscribe-link is told.
type unsubscribeLinkOptions struct {
	keyFile   string
	publicURL string
}

// unsubscribeLink is unsubscribe-link's answer.
type unsubscribeLink struct {
	Object  string            `json:"object"`
	Email   string            `json:"email"`
	Team    string            `json:"team"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

func (a *app) unsubscribeLinkCommand() *cobra.Command {
	var o unsubscribeLinkOptions
	cmd := &cobra.Command{
		Use:   "unsubscribe-link EMAIL [--key-file FILE] [--public-url URL]",
		Short: "Print an address's one-click unsubscribe URL and mail headers",
		Long: `Print the one-click unsubscribe link (RFC 8058) of one address: its URL and
the header pair to put in mail to it, for any provider:

  List-Unsubscribe: <https://shush.example/u/TOKEN>
  List-Unsubscribe-Post: List-Unsubscribe=One-Click

The recipient's mail provider posts to the URL and the service lists the
address (origin manual, evidence source one-click, reference one-click in
the trail). The token is minted here, with the team's unsubscribe key: from
--key-file (as shush unsubscribe-key --output wrote it; only its owner may
read it), else fetched from the service with a read-write key. The URL
starts with --public-url, the address the providers reach the service at,
else the configured base URL.

Output (--json, -q, or when stdout is a pipe or a file):
  {"object":"unsubscribe_link","email","team","url","headers":{"List-Unsubscribe","List-Unsubscribe-Post"}}`,
		Example: `  shush unsubscribe-link bob@example.com
  shush unsubscribe-link bob@example.com --key-file unsubscribe.key --public-url https://shush.example`,
		Args: oneArg("an email address"),
		RunE: func(cmd *cobra.Command, args []string) error {
			email, err := api.NormalizeEmail(args[0])
			if err != nil {
				return usagef("%s is not a valid email address: %v", api.Quote(args[0]), err)
			}
			base, err := a.unsubscribeBase(o.publicURL)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			team, secret, err := a.unsubscribeSecret(ctx, o.keyFile)
			if err != nil {
				return err
			}
			link := base + "/u/" + api.MintOneClick(team, secret, email, time.Now())
			out := unsubscribeLink{Object: "unsubscribe_link", Email: email, Team: team, URL: link, Headers: map[string]string{
				"List-Unsubscribe":      "<" + link + ">",
				"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
			}}
			if a.output().json {
				return writeJSON(a.io.Out, out)
			}
			_, err = fmt.Fprintf(a.io.Out, "%s\nList-Unsubscribe: %s\nList-Unsubscribe-Post: %s\n",
				link, out.Headers["List-Unsubscribe"], out.Headers["List-Unsubscribe-Post"])
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.keyFile, "key-file", "", "read the team's unsubscribe key from this file (only its owner may read it: chmod 600)")
	f.StringVar(&o.publicURL, "public-url", "", "the service's address as the recipients' mail providers reach it (default: the base URL)")
	return cmd
}

// unsubscribeBase is the start of a link: --public-url, else the
// configured base URL; an absolute http(s) URL without query.
func (a *app) unsubscribeBase(public string) (string, error) {
	flag := "--public-url"
	if public == "" {
		s, err := a.settings()
		if err != nil {
			return "", err
		}
		if s.Local() {
			return "", usagef("the link needs the address the recipients' mail providers reach the service at: give --public-url https://…")
		}
		public, flag = s.BaseURL.Value, "the base URL"
	}
	u, err := url.Parse(public)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", usagef("%s must be an absolute http(s) URL without query, fragment or credentials, not %s", flag, api.Quote(redactURL(public)))
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// redactURL hides credentials a URL may carry before it is shown.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("…")
		return u.String()
	}
	return s
}

// unsubscribeSecret is the team's unsubscribe key: from the file, or from
// the service.
func (a *app) unsubscribeSecret(ctx context.Context, keyFile string) (string, []byte, error) {
	var text string
	if keyFile != "" {
		if err := config.CheckPrivate(keyFile); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", nil, usagef("--key-file: %s does not exist", keyFile)
			}
			return "", nil, usageErr{fmt.Errorf("--key-file: %w", err)}
		}
		b, err := os.ReadFile(keyFile)
		if err != nil {
			return "", nil, usagef("--key-file: cannot read %s: %v", keyFile, errors.Unwrap(err))
		}
		text = string(b)
	} else {
		err := a.onService(ctx, func(conn *connection) error {
			k, err := conn.Client.UnsubscribeKey(ctx)
			if client.IsUnsupported(err) {
				return fmt.Errorf("%s offers no one-click unsubscribe (GET /team/unsubscribe-key): %w", conn.Target, err)
			}
			text = k.Key
			return err
		})
		if err != nil {
			return "", nil, err
		}
	}
	team, secret, err := api.ParseUnsubscribeKey(text)
	if err != nil {
		// The text is a secret, or meant to be: never shown.
		if keyFile != "" {
			return "", nil, usagef("--key-file: %s holds no unsubscribe key: %v", keyFile, err)
		}
		return "", nil, fmt.Errorf("the service's unsubscribe key: %v", err)
	}
	return team, secret, nil
}
