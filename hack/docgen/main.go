// Command docgen writes the generated references of docs/reference from the
// code itself: the flags of every command (from the binary's own flag
// sets), the metrics (from a registry the descheduler's metrics are
// registered on) and the policy fields (from the API types, their doc
// comments and their defaults). `make docs` runs it; the test beside it
// fails when a committed page differs from what it generates.
//
// Usage: go run ./hack/docgen [-out docs/reference]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "docs/reference", "directory the reference pages are written to")
	root := flag.String("root", ".", "repository root (the module's source, for the doc comments)")
	flag.Parse()
	pages, err := Generate(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for _, p := range pages {
		path := filepath.Join(*out, p.Name)
		if err := os.WriteFile(path, []byte(p.Text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", path)
	}
}
