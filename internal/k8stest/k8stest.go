// Package k8stest reads Kubernetes manifests the way the API server
// would, for tests: every document decoded strictly into its k8s.io/api
// type (a misspelt or misplaced field is an error, not dropped), and
// $(NAME) expanded in a container's arguments as the kubelet does.
// Only tests import it: the program itself carries no Kubernetes library.
package k8stest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Objects are the decoded objects of a YAML stream, by kind and name.
type Objects struct {
	Jobs       map[string]*batchv1.Job
	ConfigMaps map[string]*corev1.ConfigMap
	Secrets    map[string]*corev1.Secret
	Services   map[string]*corev1.Service
	// Order is "Kind/name" of each object, as the stream has them.
	Order []string
}

// SplitDocuments splits a YAML stream at its "---" lines and drops the
// documents that hold nothing (only comments or blank lines).
func SplitDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	var cur []byte
	flush := func() error {
		j, err := yaml.YAMLToJSON(cur)
		if err != nil {
			return fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		if s := string(bytes.TrimSpace(j)); s != "null" && s != "" {
			docs = append(docs, cur)
		}
		cur = nil
		return nil
	}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		l := strings.TrimRight(string(line), " \t\r\n")
		if l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t") {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, line...)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return docs, nil
}

// DecodeStrict decodes one YAML document into the k8s.io/api type of its
// apiVersion and kind, failing on a field that type does not have, a
// duplicate key, a value of the wrong type or a kind this package does
// not know.
func DecodeStrict(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	case "v1 Service":
		obj = &corev1.Service{}
	default:
		return nil, fmt.Errorf("kind %q of apiVersion %q: not a kind these manifests use (Job, ConfigMap, Secret, Service)", tm.Kind, tm.APIVersion)
	}
	// The YAML as JSON without the target type's help, as kubectl does
	// it (an unquoted number stays a number, which a string field
	// refuses); a duplicate key is an error.
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	// The API server's strict decoder: it matches field names
	// case-sensitively and names each unknown field by its path.
	strictErrs, err := sigsjson.UnmarshalStrict(j, obj)
	if err == nil {
		err = errors.Join(strictErrs...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return obj, nil
}

// Decode decodes every document of a YAML stream strictly; an object
// without a name, or two of one kind with one name, is an error.
func Decode(data []byte) (*Objects, error) {
	o := &Objects{Jobs: map[string]*batchv1.Job{}, ConfigMaps: map[string]*corev1.ConfigMap{},
		Secrets: map[string]*corev1.Secret{}, Services: map[string]*corev1.Service{}}
	docs, err := SplitDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, errors.New("no object in the stream")
	}
	for i, doc := range docs {
		obj, err := DecodeStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		var kind string
		var meta metav1.ObjectMeta
		switch v := obj.(type) {
		case *batchv1.Job:
			kind, meta, err = "Job", v.ObjectMeta, add(o.Jobs, v.Name, v)
		case *corev1.ConfigMap:
			kind, meta, err = "ConfigMap", v.ObjectMeta, add(o.ConfigMaps, v.Name, v)
		case *corev1.Secret:
			kind, meta, err = "Secret", v.ObjectMeta, add(o.Secrets, v.Name, v)
		case *corev1.Service:
			kind, meta, err = "Service", v.ObjectMeta, add(o.Services, v.Name, v)
		}
		if meta.Name == "" {
			return nil, fmt.Errorf("document %d: %s without metadata.name", i+1, kind)
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %s %w", i+1, kind, err)
		}
		o.Order = append(o.Order, kind+"/"+meta.Name)
	}
	return o, nil
}

func add[T any](objs map[string]*T, name string, o *T) error {
	if _, dup := objs[name]; dup {
		return fmt.Errorf("%s is defined twice", name)
	}
	objs[name] = o
	return nil
}

// Expand replaces the $(NAME) references in s as Kubernetes does in a
// container's command, args and env values: "$$" is a literal "$", and a
// reference to a name that lookup does not know stays as it is. It also
// returns the names referenced, in order.
func Expand(s string, lookup func(string) (string, bool)) (string, []string) {
	var b strings.Builder
	var refs []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			refs = append(refs, name)
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), refs
}

// Container finds a Job's container by name.
func Container(job *batchv1.Job, name string) *corev1.Container {
	for i := range job.Spec.Template.Spec.Containers {
		if c := &job.Spec.Template.Spec.Containers[i]; c.Name == name {
			return c
		}
	}
	return nil
}
