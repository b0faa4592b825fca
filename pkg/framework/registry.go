package framework

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Args is the typed argument struct of one plugin.
type Args interface {
	// Default fills every unset field with its documented default.
	Default()
	// Validate returns every problem of the (defaulted) args, each with its
	// field path below path.
	Validate(path *field.Path) field.ErrorList
}

// Deps are what a strategy factory may use besides its args.
type Deps struct {
	// Profile is the name of the profile the plugin is enabled in.
	Profile string
}

// Factory builds a strategy from its validated, defaulted args.
type Factory func(args Args, deps Deps) (Strategy, error)

// ArgsAs returns args as the plugin's own args type *T. A factory calls it
// first: the registry decodes into NewArgs's type, so an error here means a
// wiring mistake (another plugin's args, or nil), named with the plugin.
func ArgsAs[T any, PT interface {
	*T
	Args
}](plugin string, args Args) (PT, error) {
	a, ok := args.(PT)
	if !ok || a == nil {
		return nil, fmt.Errorf("%s: want args of type %T, got %T", plugin, a, args)
	}
	return a, nil
}

// Plugin describes one registered plugin.
type Plugin struct {
	// Name is the plugin name used in policies.
	Name string
	// Points lists the extension points the plugin implements.
	Points []ExtensionPoint
	// NewArgs returns a pointer to a zero args struct to decode into.
	NewArgs func() Args
	// New builds the strategy. It is nil for plugins that are not strategies
	// (the DefaultEvictor).
	New Factory
}

// Implements reports whether the plugin implements the extension point.
func (p Plugin) Implements(point ExtensionPoint) bool {
	return slices.Contains(p.Points, point)
}

// Registry maps plugin names to plugins. Build one with NewRegistry; it has
// no package-level state.
type Registry struct {
	plugins map[string]Plugin
}

// NewRegistry returns a registry holding the given plugins, or an error when
// a name is registered twice or a plugin is incomplete.
func NewRegistry(plugins ...Plugin) (*Registry, error) {
	r := &Registry{plugins: make(map[string]Plugin, len(plugins))}
	for _, p := range plugins {
		if err := r.Register(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds a plugin; registering a name twice is an error.
func (r *Registry) Register(p Plugin) error {
	if p.Name == "" || p.NewArgs == nil || len(p.Points) == 0 {
		return fmt.Errorf("plugin %q: name, points and NewArgs are required", p.Name)
	}
	if _, dup := r.plugins[p.Name]; dup {
		return fmt.Errorf("plugin %q is already registered", p.Name)
	}
	r.plugins[p.Name] = p
	return nil
}

// Lookup returns the plugin registered under name.
func (r *Registry) Lookup(name string) (Plugin, bool) {
	p, ok := r.plugins[name]
	return p, ok
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.plugins))
	for n := range r.plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
