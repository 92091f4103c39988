// gotruth prints the call and reference edges between a Go module's definitions as
// go/types resolves them (golang.org/x/tools/go/packages), in warpline's go: dialect,
// one JSON object per line: {"source", "target", "kind"}. It is the truth that
// bench/bench_go_edges.py scores warpline's tree-sitter extractor against.
//
// A definition is a top-level func, method (Recv.Name, receiver's base type), or type
// spec (struct, interface, type); package-level var/const/import lines belong to the
// package entity (go:module:<path>). An edge is a use (types.Info.Uses) inside one
// definition of an object that is a definition of the module (or a package-level
// var/const: its package entity): "calls" when the use is what a call expression calls,
// "references" otherwise. An interface's method names the interface. Fields and locals
// are not definitions. Self edges are left out.
//
// Usage: gotruth DIR (the module root; its packages and their tests are loaded, for the
// GOOS/GOARCH of the environment: run it once per platform and join the answers to see
// files behind build constraints).
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

type edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Kind   string `json:"kind"`
}

func main() {
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		panic(err)
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule,
		Dir:   root,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		panic(err)
	}
	for _, pkg := range pkgs {
		for _, file := range pkg.Syntax {
			for _, decl := range file.Decls {
				if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.TYPE {
					for _, spec := range gen.Specs {
						ts := spec.(*ast.TypeSpec)
						kinds[ownPath(pkg.Types)+"."+ts.Name.Name] = specKind(ts)
					}
				}
			}
		}
	}
	seen := map[edge]bool{}
	out := json.NewEncoder(os.Stdout)
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			for _, e := range pkg.Errors {
				fmt.Fprintln(os.Stderr, pkg.ID, e)
			}
		}
		if pkg.Module == nil {
			continue
		}
		modPath := pkg.Module.Path
		for i, file := range pkg.Syntax {
			name := pkg.CompiledGoFiles[i]
			if !strings.HasPrefix(name, root+string(filepath.Separator)) {
				continue // the generated test main
			}
			walk(pkg, modPath, file, func(e edge) {
				if e.Source != e.Target && !seen[e] {
					seen[e] = true
					out.Encode(e)
				}
			})
		}
	}
}

func ownPath(pkg *types.Package) string {
	path := pkg.Path()
	if strings.HasSuffix(pkg.Name(), "_test") {
		path = strings.TrimSuffix(path, "_test")
	}
	return path
}

func inModule(pkg *types.Package, modPath string) bool {
	if pkg == nil {
		return false
	}
	p := ownPath(pkg)
	return p == modPath || strings.HasPrefix(p, modPath+"/")
}

func baseName(t types.Type) string {
	for {
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Named:
			return u.Obj().Name()
		case *types.Alias:
			return u.Obj().Name()
		default:
			return ""
		}
	}
}

// kinds: "<path>.<Name>" -> the kind warpline's dialect gives the type spec: by its
// syntax (`type X struct{…}` is a struct; `type Y pkg.Z` a type, whatever Z is).
var kinds = map[string]string{}

func specKind(ts *ast.TypeSpec) string {
	if ts.Assign.IsValid() {
		return "type"
	}
	switch ts.Type.(type) {
	case *ast.StructType:
		return "struct"
	case *ast.InterfaceType:
		return "interface"
	}
	return "type"
}

func typeKind(obj *types.TypeName) string {
	if kind, ok := kinds[ownPath(obj.Pkg())+"."+obj.Name()]; ok {
		return kind
	}
	return "type"
}

// target is the locator of the definition obj is, or "".
func target(obj types.Object, modPath string) string {
	if obj == nil || !inModule(obj.Pkg(), modPath) {
		return ""
	}
	path := ownPath(obj.Pkg())
	switch o := obj.(type) {
	case *types.Func:
		sig, _ := o.Type().(*types.Signature)
		if sig != nil && sig.Recv() != nil {
			recv := sig.Recv().Type()
			if iface, ok := recv.Underlying().(*types.Interface); ok && iface != nil {
				kind, ok := kinds[path+"."+baseName(recv)]
				if !ok {
					return "" // an interface declared inside a function
				}
				return "go:" + kind + ":" + path + "." + baseName(recv)
			}
			name := baseName(recv)
			if name == "" {
				return ""
			}
			return "go:function:" + path + "." + name + "." + o.Name()
		}
		if o.Parent() != obj.Pkg().Scope() {
			return ""
		}
		return "go:function:" + path + "." + o.Name()
	case *types.TypeName:
		if o.Parent() != obj.Pkg().Scope() {
			return ""
		}
		return "go:" + typeKind(o) + ":" + path + "." + o.Name()
	case *types.Var:
		if o.IsField() || o.Parent() != obj.Pkg().Scope() {
			return ""
		}
		return "go:module:" + path
	case *types.Const:
		if o.Parent() != obj.Pkg().Scope() {
			return ""
		}
		return "go:module:" + path
	}
	return ""
}

func recvBase(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// callees: identifiers that are what a call expression calls.
func callees(file *ast.File) map[*ast.Ident]bool {
	out := map[*ast.Ident]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := call.Fun
		for {
			switch f := fun.(type) {
			case *ast.ParenExpr:
				fun = f.X
				continue
			case *ast.IndexExpr:
				fun = f.X
				continue
			case *ast.IndexListExpr:
				fun = f.X
				continue
			case *ast.SelectorExpr:
				out[f.Sel] = true
			case *ast.Ident:
				out[f] = true
			}
			break
		}
		return true
	})
	return out
}

func walk(pkg *packages.Package, modPath string, file *ast.File, emit func(edge)) {
	path := ownPath(pkg.Types)
	module := "go:module:" + path
	called := callees(file)
	visit := func(node ast.Node, source string) {
		ast.Inspect(node, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := pkg.TypesInfo.Uses[id]
			t := target(obj, modPath)
			if t == "" {
				return true
			}
			kind := "references"
			if called[id] {
				if _, isFunc := obj.(*types.Func); isFunc {
					kind = "calls"
				}
			}
			emit(edge{source, t, kind})
			return true
		})
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				name = recvBase(d.Recv.List[0].Type) + "." + name
			}
			visit(d, "go:function:"+path+"."+name)
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				visit(d, module)
				continue
			}
			for _, spec := range d.Specs {
				ts := spec.(*ast.TypeSpec)
				visit(ts, "go:"+specKind(ts)+":"+path+"."+ts.Name.Name)
			}
		}
	}
}
