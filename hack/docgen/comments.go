package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// modulePath is the import path of this repository's module.
const modulePath = "github.com/usage-descheduler/descheduler"

// pkgDocs are the doc comments and string constants of one Go package.
type pkgDocs struct {
	// fields maps "Type.Field" to the field's doc comment.
	fields map[string]string
	// consts maps a named type to its string constants, in source order.
	consts map[string][]string
}

// docIndex reads packages of this module from source, once each.
type docIndex struct {
	root string
	pkgs map[string]*pkgDocs
}

func newDocIndex(root string) *docIndex {
	return &docIndex{root: root, pkgs: map[string]*pkgDocs{}}
}

// inModule reports whether pkgPath belongs to this repository.
func inModule(pkgPath string) bool {
	return pkgPath == modulePath || strings.HasPrefix(pkgPath, modulePath+"/")
}

// pkg parses the package pkgPath (this module's only) for its docs.
func (x *docIndex) pkg(pkgPath string) (*pkgDocs, error) {
	if d, ok := x.pkgs[pkgPath]; ok {
		return d, nil
	}
	dir := filepath.Join(x.root, strings.TrimPrefix(strings.TrimPrefix(pkgPath, modulePath), "/"))
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("reading the sources of %s: %w", pkgPath, err)
	}
	d := &pkgDocs{fields: map[string]string{}, consts: map[string][]string{}}
	for _, p := range pkgs {
		for _, f := range p.Files {
			collectDocs(f, d)
		}
	}
	x.pkgs[pkgPath] = d
	return d, nil
}

// collectDocs adds the struct field comments and typed string constants of
// one file to d.
func collectDocs(f *ast.File, d *pkgDocs) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.TYPE:
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					text := fld.Doc.Text()
					if text == "" {
						text = fld.Comment.Text()
					}
					for _, n := range fld.Names {
						d.fields[ts.Name.Name+"."+n.Name] = text
					}
				}
			}
		case token.CONST:
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				ident, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != len(vs.Names) {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					if s, err := strconv.Unquote(lit.Value); err == nil {
						d.consts[ident.Name] = append(d.consts[ident.Name], s)
					}
				}
			}
		}
	}
}
