package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifestDir is the manifests' directory, relative to this package's
// directory (go test's working directory).
const manifestDir = "kubernetes"

// The names that the manifests, their README and the program agree on.
const (
	runJobName      = "sysbench"
	runContainer    = "sysbench"
	mergeJobName    = "sysbench-merge"
	configName      = "sysbench-config"
	secretName      = "sysbench-db"
	resultsClaim    = "sysbench-results"
	customScript    = "/etc/sysbench/workload.lua" // where configmap.yaml says the custom script is
	customScriptKey = "workload.lua"
	indexVar        = "JOB_COMPLETION_INDEX"
	indexFieldPath  = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
)

// manifests are the decoded objects of the manifest files, by name.
type manifests struct {
	jobs       map[string]*batchv1.Job
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
	claims     map[string]*corev1.PersistentVolumeClaim
	services   map[string]*corev1.Service
	namespaces map[string]*corev1.Namespace
	files      map[string]string // "Kind/name" -> the file it is in
}

// readManifestFiles reads every *.yaml file of dir: file name -> content.
func readManifestFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".yml"):
			t.Errorf("%s: name manifests *.yaml: this test reads only those", e.Name())
		case strings.HasSuffix(e.Name(), ".yaml"):
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = data
		}
	}
	if len(files) == 0 {
		t.Fatalf("no *.yaml file in %s", dir)
	}
	return files
}

// splitDocuments splits a YAML stream at its "---" lines and drops the
// documents that hold nothing (only comments or blank lines).
func splitDocuments(data []byte) ([][]byte, error) {
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

// decodeStrict decodes one YAML document into the k8s.io/api type of its
// apiVersion and kind, failing on a field that type does not have (a
// misspelt one), a duplicate key, a value of the wrong type or a kind this
// test does not know.
func decodeStrict(doc []byte) (any, error) {
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
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	case "v1 Service":
		obj = &corev1.Service{}
	case "v1 Namespace":
		obj = &corev1.Namespace{}
	default:
		return nil, fmt.Errorf("kind %q of apiVersion %q: not a kind these manifests use (Job, ConfigMap, Secret, PersistentVolumeClaim, Service, Namespace)", tm.Kind, tm.APIVersion)
	}
	// The YAML as JSON, without the target type's help as kubectl does it
	// (an unquoted number stays a number, which a string field refuses);
	// a duplicate key is an error.
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	// The API server's strict decoder: unlike encoding/json, it matches
	// field names case-sensitively (encoding/json would take
	// "containerport" for containerPort) and names each unknown field by
	// its path.
	strictErrs, err := sigsjson.UnmarshalStrict(j, obj)
	if err == nil {
		err = errors.Join(strictErrs...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return obj, nil
}

// loadManifests decodes every document of files.
func loadManifests(files map[string][]byte) (*manifests, error) {
	m := &manifests{
		jobs:       map[string]*batchv1.Job{},
		configMaps: map[string]*corev1.ConfigMap{},
		secrets:    map[string]*corev1.Secret{},
		claims:     map[string]*corev1.PersistentVolumeClaim{},
		services:   map[string]*corev1.Service{},
		namespaces: map[string]*corev1.Namespace{},
		files:      map[string]string{},
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		docs, err := splitDocuments(files[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(docs) == 0 {
			return nil, fmt.Errorf("%s: no object in it", name)
		}
		for i, doc := range docs {
			obj, err := decodeStrict(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
			}
			var kind string
			var meta metav1.ObjectMeta
			switch o := obj.(type) {
			case *batchv1.Job:
				kind, meta = "Job", o.ObjectMeta
				err = add(m.jobs, o.Name, o)
			case *corev1.ConfigMap:
				kind, meta = "ConfigMap", o.ObjectMeta
				err = add(m.configMaps, o.Name, o)
			case *corev1.Secret:
				kind, meta = "Secret", o.ObjectMeta
				err = add(m.secrets, o.Name, o)
			case *corev1.PersistentVolumeClaim:
				kind, meta = "PersistentVolumeClaim", o.ObjectMeta
				err = add(m.claims, o.Name, o)
			case *corev1.Service:
				kind, meta = "Service", o.ObjectMeta
				err = add(m.services, o.Name, o)
			case *corev1.Namespace:
				kind, meta = "Namespace", o.ObjectMeta
				err = add(m.namespaces, o.Name, o)
			}
			if meta.Name == "" {
				return nil, fmt.Errorf("%s: document %d: %s without metadata.name", name, i+1, kind)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %s %w", name, i+1, kind, err)
			}
			m.files[kind+"/"+meta.Name] = name
		}
	}
	return m, nil
}

func add[T any](objs map[string]*T, name string, o *T) error {
	if _, dup := objs[name]; dup {
		return fmt.Errorf("%s is defined twice", name)
	}
	objs[name] = o
	return nil
}

// expand replaces the $(NAME) references in s as Kubernetes does in a
// container's command, args, env values and subPathExpr: "$$" is a
// literal "$", and a reference to a name that lookup does not know stays
// as it is. It also returns the names referenced, in order.
func expand(s string, lookup func(string) (string, bool)) (string, []string) {
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

// envVar is one environment variable of a container as the files define it.
type envVar struct {
	value     string // its value when the files give it (a literal or a ConfigMap key's)
	known     bool
	fieldPath string // the downward API field it comes from, if any
}

// env is a container's environment, by name.
type env map[string]envVar

// lookup gives a variable's value for expand: the value when the files
// give it, else a stand-in "{NAME}" (a Secret's key, a pod field).
func (e env) lookup(name string) (string, bool) {
	v, ok := e[name]
	switch {
	case !ok:
		return "", false
	case v.known:
		return v.value, true
	default:
		return "{" + name + "}", true
	}
}

// location is where a path inside a container lies on the pod's volumes.
type location struct {
	volume *corev1.Volume
	path   string // inside the volume, cleaned: "." is its root
}

// claim is the name of the location's PersistentVolumeClaim, "" when its
// volume is of another kind.
func (l location) claim() string {
	if l.volume == nil || l.volume.PersistentVolumeClaim == nil {
		return ""
	}
	return l.volume.PersistentVolumeClaim.ClaimName
}

func (l location) String() string {
	if c := l.claim(); c != "" {
		return fmt.Sprintf("claim %s, %s", c, l.path)
	}
	return fmt.Sprintf("volume %s, %s", l.volume.Name, l.path)
}

// checker collects the problems that the manifests have.
type checker struct {
	m        *manifests
	problems []string
}

func (c *checker) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// where names an object for messages: "job.yaml: Job sysbench".
func (c *checker) where(kind, name string) string {
	return fmt.Sprintf("%s: %s %s", c.m.files[kind+"/"+name], kind, name)
}

// configMapKey is a ConfigMap's key's value; found is false, with a problem
// reported, when the files have no such ConfigMap or key.
func (c *checker) configMapKey(where, name, key string) (value string, found bool) {
	cm, ok := c.m.configMaps[name]
	if !ok {
		c.errorf("%s: ConfigMap %s is in no manifest", where, name)
		return "", false
	}
	if v, ok := cm.Data[key]; ok {
		return v, true
	}
	if _, ok := cm.BinaryData[key]; ok {
		return "", true
	}
	c.errorf("%s: ConfigMap %s has no key %s (it has %s)", where, name, key, strings.Join(configMapKeys(cm), ", "))
	return "", false
}

func configMapKeys(cm *corev1.ConfigMap) []string {
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	for k := range cm.BinaryData {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// secretKey reports a reference to a Secret or key that the files lack.
func (c *checker) secretKey(where, name, key string) bool {
	s, ok := c.m.secrets[name]
	if !ok {
		c.errorf("%s: Secret %s is in no manifest", where, name)
		return false
	}
	if _, ok := s.Data[key]; ok {
		return true
	}
	if _, ok := s.StringData[key]; ok {
		return true
	}
	c.errorf("%s: Secret %s has no key %s", where, name, key)
	return false
}

// containerEnv builds container ct's environment as the kubelet would:
// envFrom first, then env in order (an env value may use only the
// variables defined before it). References to ConfigMaps, Secrets or keys
// that the files do not define are problems; an optional reference to a
// missing one leaves the variable undefined.
func (c *checker) containerEnv(where string, ct *corev1.Container) env {
	e := env{}
	for _, from := range ct.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm, ok := c.m.configMaps[from.ConfigMapRef.Name]
			if !ok {
				if from.ConfigMapRef.Optional == nil || !*from.ConfigMapRef.Optional {
					c.errorf("%s: envFrom: ConfigMap %s is in no manifest", where, from.ConfigMapRef.Name)
				}
				continue
			}
			for k, v := range cm.Data {
				e[from.Prefix+k] = envVar{value: v, known: true}
			}
		case from.SecretRef != nil:
			s, ok := c.m.secrets[from.SecretRef.Name]
			if !ok {
				if from.SecretRef.Optional == nil || !*from.SecretRef.Optional {
					c.errorf("%s: envFrom: Secret %s is in no manifest", where, from.SecretRef.Name)
				}
				continue
			}
			for k := range s.Data {
				e[from.Prefix+k] = envVar{}
			}
			for k := range s.StringData {
				e[from.Prefix+k] = envVar{}
			}
		}
	}
	for _, v := range ct.Env {
		w := fmt.Sprintf("%s: env %s", where, v.Name)
		if v.ValueFrom == nil {
			value, refs := expand(v.Value, e.lookup)
			for _, r := range refs {
				if _, ok := e[r]; !ok {
					c.errorf("%s: $(%s) is not defined before it", w, r)
				}
			}
			e[v.Name] = envVar{value: value, known: true}
			continue
		}
		switch vf := v.ValueFrom; {
		case vf.ConfigMapKeyRef != nil:
			ref := vf.ConfigMapKeyRef
			if ref.Optional != nil && *ref.Optional {
				if cm, ok := c.m.configMaps[ref.Name]; !ok || !slices.Contains(configMapKeys(cm), ref.Key) {
					continue
				}
			}
			if value, ok := c.configMapKey(w, ref.Name, ref.Key); ok {
				e[v.Name] = envVar{value: value, known: true}
			}
		case vf.SecretKeyRef != nil:
			ref := vf.SecretKeyRef
			if ref.Optional != nil && *ref.Optional {
				s, ok := c.m.secrets[ref.Name]
				if !ok {
					continue
				}
				_, inData := s.Data[ref.Key]
				_, inStringData := s.StringData[ref.Key]
				if !inData && !inStringData {
					continue
				}
			}
			if c.secretKey(w, ref.Name, ref.Key) {
				e[v.Name] = envVar{}
			}
		case vf.FieldRef != nil:
			e[v.Name] = envVar{fieldPath: vf.FieldRef.FieldPath}
		default:
			e[v.Name] = envVar{}
		}
	}
	return e
}

// expandChecked expands s with e, reporting the references that e does
// not define: Kubernetes would pass "$(NAME)" on as it is.
func (c *checker) expandChecked(where, s string, e env) string {
	out, refs := expand(s, e.lookup)
	for _, r := range refs {
		if _, ok := e[r]; !ok {
			c.errorf("%s: $(%s) is not defined in the container's env (nor by its envFrom)", where, r)
		}
	}
	return out
}

// resolve finds where path p of container ct lies on the pod's volumes:
// under the mount with the longest mountPath that contains it.
func resolve(pod *corev1.PodSpec, ct *corev1.Container, e env, p string) (location, bool) {
	p = path.Clean(p)
	best := -1
	for i, vm := range ct.VolumeMounts {
		mp := path.Clean(vm.MountPath)
		if p != mp && !strings.HasPrefix(p, strings.TrimSuffix(mp, "/")+"/") {
			continue
		}
		if best < 0 || len(mp) > len(path.Clean(ct.VolumeMounts[best].MountPath)) {
			best = i
		}
	}
	if best < 0 {
		return location{}, false
	}
	vm := ct.VolumeMounts[best]
	var vol *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == vm.Name {
			vol = &pod.Volumes[i]
		}
	}
	if vol == nil {
		return location{}, false
	}
	sub := vm.SubPath
	if vm.SubPathExpr != "" {
		sub, _ = expand(vm.SubPathExpr, e.lookup)
	}
	rest := strings.TrimPrefix(p, path.Clean(vm.MountPath))
	return location{volume: vol, path: path.Join(".", sub, rest)}, true
}

// optionValues are the values of a command line's --name=value options
// (several for an option given more than once) and its other arguments.
func optionValues(args []string) (map[string][]string, []string) {
	opts := map[string][]string{}
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			rest = append(rest, a)
			continue
		}
		name, value, _ := strings.Cut(a[2:], "=")
		opts[name] = append(opts[name], value)
	}
	return opts, rest
}

// onlyOption is the value of an option that must be given exactly once.
func (c *checker) onlyOption(where string, opts map[string][]string, name string) (string, bool) {
	switch v := opts[name]; len(v) {
	case 1:
		return v[0], true
	case 0:
		c.errorf("%s: no --%s= in args", where, name)
	default:
		c.errorf("%s: --%s= is in args %d times", where, name, len(v))
	}
	return "", false
}

// container finds a Job's container by name.
func (c *checker) container(job *batchv1.Job, name string) *corev1.Container {
	for i := range job.Spec.Template.Spec.Containers {
		if ct := &job.Spec.Template.Spec.Containers[i]; ct.Name == name {
			return ct
		}
	}
	c.errorf("%s: no container %s", c.where("Job", job.Name), name)
	return nil
}

// podChecks are those of every Job's pod: its references to volumes,
// claims, ConfigMaps and Secrets hold, every $(VAR) of its containers is
// defined, and it runs as non-root on a read-only root file system with
// an emptyDir at /tmp (restricted Pod Security). It returns the
// containers' environments, by container name.
func (c *checker) podChecks(job *batchv1.Job) map[string]env {
	where := c.where("Job", job.Name)
	pod := &job.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		c.errorf("%s: restartPolicy is %q, not Never", where, pod.RestartPolicy)
	}
	if len(pod.InitContainers) > 0 {
		c.errorf("%s: init containers are not checked by this test: check them and extend it", where)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		c.errorf("%s: the pod's securityContext does not set runAsNonRoot: true", where)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		c.errorf("%s: the pod's securityContext does not set seccompProfile RuntimeDefault", where)
	}
	for _, v := range pod.Volumes {
		vw := fmt.Sprintf("%s: volume %s", where, v.Name)
		switch {
		case v.PersistentVolumeClaim != nil:
			if _, ok := c.m.claims[v.PersistentVolumeClaim.ClaimName]; !ok {
				c.errorf("%s: PersistentVolumeClaim %s is in no manifest", vw, v.PersistentVolumeClaim.ClaimName)
			}
		case v.ConfigMap != nil:
			for _, it := range v.ConfigMap.Items {
				c.configMapKey(vw, v.ConfigMap.Name, it.Key)
			}
			if len(v.ConfigMap.Items) == 0 {
				c.configMapExists(vw, v.ConfigMap.Name)
			}
		case v.Secret != nil:
			for _, it := range v.Secret.Items {
				c.secretKey(vw, v.Secret.SecretName, it.Key)
			}
		case v.EmptyDir != nil:
		default:
			c.errorf("%s: a kind of volume that this test does not check (and that restricted Pod Security may refuse)", vw)
		}
	}
	envs := map[string]env{}
	for i := range pod.Containers {
		ct := &pod.Containers[i]
		cw := fmt.Sprintf("%s: container %s", where, ct.Name)
		e := c.containerEnv(cw, ct)
		envs[ct.Name] = e
		for _, s := range ct.Command {
			c.expandChecked(cw+": command", s, e)
		}
		for _, s := range ct.Args {
			c.expandChecked(cw+": args", s, e)
		}
		for _, vm := range ct.VolumeMounts {
			mw := fmt.Sprintf("%s: volumeMount %s", cw, vm.MountPath)
			if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name }) {
				c.errorf("%s: no volume %s in the pod", mw, vm.Name)
			}
			if vm.SubPathExpr != "" {
				if vm.SubPath != "" {
					c.errorf("%s: subPath and subPathExpr together", mw)
				}
				sub := c.expandChecked(mw+": subPathExpr", vm.SubPathExpr, e)
				if path.IsAbs(sub) || slices.Contains(strings.Split(sub, "/"), "..") || sub == "" {
					c.errorf("%s: subPathExpr %q gives %q: Kubernetes refuses an empty, absolute or '..' path", mw, vm.SubPathExpr, sub)
				}
			}
		}
		sc := ct.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			c.errorf("%s: securityContext does not set readOnlyRootFilesystem: true", cw)
		}
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			c.errorf("%s: securityContext does not set allowPrivilegeEscalation: false", cw)
		}
		if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			c.errorf("%s: securityContext does not drop ALL capabilities", cw)
		}
		if l, ok := resolve(pod, ct, e, "/tmp"); !ok || l.volume.EmptyDir == nil || l.path != "." {
			c.errorf("%s: /tmp is not an emptyDir volume (the root file system is read-only)", cw)
		}
		if ct.Resources.Requests.Cpu().IsZero() || ct.Resources.Requests.Memory().IsZero() || ct.Resources.Limits.Memory().IsZero() {
			c.errorf("%s: resources: no CPU and memory requests and memory limit", cw)
		}
	}
	return envs
}

// configMapExists reports a ConfigMap that the files lack.
func (c *checker) configMapExists(where, name string) {
	if _, ok := c.m.configMaps[name]; !ok {
		c.errorf("%s: ConfigMap %s is in no manifest", where, name)
	}
}

// instanceRE is --instance's value in the run job: the pod's index, then N.
var instanceRE = regexp.MustCompile(`^\$\(` + indexVar + `\)/([0-9]+)$`)

// runIDRE is what RUN_ID may be: one directory name.
var runIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// runJobChecks are the run job's: an Indexed Job of N pods all at once,
// each with --instance=$(JOB_COMPLETION_INDEX)/N, its results file on the
// results claim under a name of its own, its metrics port announced to
// Prometheus, and options the program accepts. It returns the directory
// where the instances write their results files.
func (c *checker) runJobChecks(job *batchv1.Job, ct *corev1.Container, e env) (results location, written bool) {
	where := c.where("Job", job.Name)
	spec := &job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		c.errorf("%s: completionMode is not Indexed: the pods would have no index", where)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 {
		c.errorf("%s: backoffLimit is not 0: a retried instance would miss START_AT", where)
	}
	completions, parallelism := int32(-1), int32(-1)
	if spec.Completions != nil {
		completions = *spec.Completions
	}
	if spec.Parallelism != nil {
		parallelism = *spec.Parallelism
	}
	if completions < 1 || parallelism != completions {
		c.errorf("%s: completions (%d) and parallelism (%d) must be set and equal: all N instances run at once", where, completions, parallelism)
	}
	cw := fmt.Sprintf("%s: container %s", where, ct.Name)
	pod := &spec.Template.Spec

	// The pod's index, from the annotation the Job controller sets.
	if v, ok := e[indexVar]; !ok || v.fieldPath != indexFieldPath {
		c.errorf("%s: env %s is not defined by a fieldRef to %s", cw, indexVar, indexFieldPath)
	}

	opts, rest := optionValues(ct.Args)
	if len(rest) == 0 || rest[len(rest)-1] != "run" {
		c.errorf("%s: args do not end with the command run", cw)
	}
	if len(rest) != 2 {
		c.errorf("%s: args should have two words besides the options, the script and run; they have %q", cw, rest)
	}
	if v, ok := c.onlyOption(cw, opts, "instance"); ok {
		if m := instanceRE.FindStringSubmatch(v); m == nil {
			c.errorf("%s: --instance=%s is not $(%s)/N", cw, v, indexVar)
		} else if n, _ := strconv.Atoi(m[1]); int32(n) != completions || int32(n) != parallelism {
			c.errorf("%s: --instance=%s: N is %d but completions is %d and parallelism %d: change the three together", cw, v, n, completions, parallelism)
		}
	}

	// The options with values from the ConfigMap, as the program gets them.
	expanded := make([]string, len(ct.Args))
	for i, a := range ct.Args {
		expanded[i], _ = expand(a, e.lookup)
	}
	xopts, xrest := optionValues(expanded)
	c.optionValueChecks(cw, xopts)
	if len(xrest) > 0 && path.IsAbs(xrest[0]) {
		c.scriptFileCheck(cw+": script "+xrest[0], pod, ct, e, xrest[0])
	}
	c.scriptFileCheck(cw+": the custom script "+customScript+" (configmap.yaml)", pod, ct, e, customScript)
	for _, vm := range ct.VolumeMounts {
		if vm.SubPathExpr != "" && strings.Contains(vm.SubPathExpr, "$(RUN_ID)") {
			if v := e["RUN_ID"]; v.known && !runIDRE.MatchString(v.value) {
				c.errorf("%s: RUN_ID %q is not one directory name (letters, digits, '-', '_', '.')", cw, v.value)
			}
		}
	}

	// Each instance writes a results file of its own on the claim.
	if v, ok := c.onlyOption(cw, opts, "results"); ok {
		if !strings.Contains(path.Base(v), "$("+indexVar+")") {
			c.errorf("%s: --results=%s: the file name does not have $(%s): the instances would write the same file", cw, v, indexVar)
		}
		p, _ := expand(v, e.lookup)
		l, found := resolve(pod, ct, e, p)
		switch {
		case !found:
			c.errorf("%s: --results=%s is on no volume: the root file system is read-only", cw, v)
		case l.claim() == "":
			c.errorf("%s: --results=%s is on volume %s, not on a PersistentVolumeClaim: the merge job could not read it", cw, v, l.volume.Name)
		default:
			results, written = location{volume: l.volume, path: path.Dir(l.path)}, true
		}
	}

	// Metrics: --metrics-addr's port is a containerPort and the annotated one.
	if v, found := c.onlyOption(cw, opts, "metrics-addr"); found {
		_, port, err := net.SplitHostPort(v)
		if err != nil {
			c.errorf("%s: --metrics-addr=%s: %v", cw, v, err)
		}
		if !slices.ContainsFunc(ct.Ports, func(p corev1.ContainerPort) bool { return strconv.Itoa(int(p.ContainerPort)) == port }) {
			c.errorf("%s: --metrics-addr=%s: port %s is not a containerPort of the container", cw, v, port)
		}
		ann := spec.Template.Annotations
		if ann["prometheus.io/scrape"] != "true" {
			c.errorf("%s: pod annotation prometheus.io/scrape is %q, not \"true\"", where, ann["prometheus.io/scrape"])
		}
		if ann["prometheus.io/port"] != port {
			c.errorf("%s: pod annotation prometheus.io/port is %q but --metrics-addr=%s serves on %s", where, ann["prometheus.io/port"], v, port)
		}
		if ann["prometheus.io/path"] != "/metrics" {
			c.errorf("%s: pod annotation prometheus.io/path is %q, not /metrics", where, ann["prometheus.io/path"])
		}
	}
	return results, written
}

// optionValueChecks checks the values that the ConfigMap gives the run's
// options, as the program would read them.
func (c *checker) optionValueChecks(where string, opts map[string][]string) {
	driver := ""
	if v := opts["db-driver"]; len(v) == 1 {
		driver = v[0]
		if driver != "mysql" && driver != "pgsql" {
			c.errorf("%s: --db-driver=%s: DB_DRIVER must be mysql or pgsql (the option names are built from it)", where, driver)
		}
	}
	for name, values := range opts {
		for _, v := range values {
			w := fmt.Sprintf("%s: --%s=%s", where, name, v)
			if strings.Contains(v, "$(") || strings.Contains(name, "$(") {
				continue // reported as undefined already
			}
			if d, _, ok := strings.Cut(name, "-"); ok && (d == "mysql" || d == "pgsql") && d != driver {
				c.errorf("%s: an option of driver %s, but --db-driver is %q", w, d, driver)
			}
			switch {
			case name == "threads" || name == "time" || name == "tables" || name == "table-size" || name == "report-interval":
				if n, err := strconv.Atoi(v); err != nil || n < 1 {
					c.errorf("%s: not a positive integer", w)
				}
			case strings.HasSuffix(name, "-port"):
				if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 65535 {
					c.errorf("%s: not a port number", w)
				}
			case name == "start-at":
				_, errTime := time.Parse(time.RFC3339, v)
				_, errUnix := strconv.ParseInt(v, 10, 64)
				if errTime != nil && errUnix != nil {
					c.errorf("%s: START_AT is neither RFC 3339 (2006-01-02T15:04:05Z) nor Unix seconds", w)
				}
			}
		}
	}
}

// scriptFileCheck checks that file p of the container is a key of a
// mounted ConfigMap that the files define.
func (c *checker) scriptFileCheck(where string, pod *corev1.PodSpec, ct *corev1.Container, e env, p string) {
	l, ok := resolve(pod, ct, e, p)
	if !ok || l.volume.ConfigMap == nil {
		c.errorf("%s: not on a ConfigMap volume of the pod", where)
		return
	}
	key := l.path
	if items := l.volume.ConfigMap.Items; len(items) > 0 {
		key = ""
		for _, it := range items {
			if path.Clean(it.Path) == l.path {
				key = it.Key
			}
		}
		if key == "" {
			c.errorf("%s: ConfigMap volume %s has no item at %s", where, l.volume.Name, l.path)
			return
		}
	}
	c.configMapKey(where, l.volume.ConfigMap.Name, key)
}

// mergeJobChecks are the merge job's: `report --results=FILE DIR`, DIR
// being the run job's results directory on the same claim, FILE on a
// claim too.
func (c *checker) mergeJobChecks(job *batchv1.Job, results location, runImage string) {
	where := c.where("Job", job.Name)
	pod := &job.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		c.errorf("%s: %d containers, not one", where, len(pod.Containers))
		return
	}
	ct := &pod.Containers[0]
	cw := fmt.Sprintf("%s: container %s", where, ct.Name)
	if ct.Image != runImage {
		c.errorf("%s: image %q is not the run job's %q", cw, ct.Image, runImage)
	}
	e := c.containerEnv(cw, ct)
	opts, rest := optionValues(ct.Args)
	if len(rest) < 2 || rest[0] != "report" {
		c.errorf("%s: args are not report [--results=FILE] FILE|DIR...: %q", cw, ct.Args)
		return
	}
	if v, ok := c.onlyOption(cw, opts, "results"); ok {
		p, _ := expand(v, e.lookup)
		if l, found := resolve(pod, ct, e, p); !found || l.claim() == "" {
			c.errorf("%s: --results=%s is not on a PersistentVolumeClaim: the merged file would be lost", cw, v)
		}
	}
	reads := false
	var seen []string
	for _, a := range rest[1:] {
		p, _ := expand(a, e.lookup)
		l, found := resolve(pod, ct, e, p)
		if !found {
			c.errorf("%s: %s is on no volume", cw, a)
			continue
		}
		seen = append(seen, fmt.Sprintf("%s (%s)", a, l))
		if l.claim() != "" && l.claim() == results.claim() && l.path == results.path {
			reads = true
		}
	}
	if !reads {
		c.errorf("%s: reads %s, not the directory where job %s writes its results (%s)", cw, strings.Join(seen, ", "), runJobName, results)
	}
}

// serviceChecks are those of a metrics Service: headless, selecting the
// run job's pods and not the merge job's, on the metrics port.
func (c *checker) serviceChecks(svc *corev1.Service, ct *corev1.Container, run, merge *batchv1.Job, metricsPort string) {
	where := c.where("Service", svc.Name)
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		c.errorf("%s: clusterIP is %q, not None (headless)", where, svc.Spec.ClusterIP)
	}
	selects := func(labels map[string]string) bool {
		for k, v := range svc.Spec.Selector {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	if len(svc.Spec.Selector) == 0 || !selects(run.Spec.Template.Labels) {
		c.errorf("%s: selector %v does not select job %s's pods (labels %v)", where, svc.Spec.Selector, run.Name, run.Spec.Template.Labels)
	}
	if merge != nil && selects(merge.Spec.Template.Labels) {
		c.errorf("%s: selector %v selects job %s's pods too", where, svc.Spec.Selector, merge.Name)
	}
	for _, p := range svc.Spec.Ports {
		target := p.TargetPort.String()
		if target == "0" || target == "" {
			target = strconv.Itoa(int(p.Port))
		}
		found := slices.ContainsFunc(ct.Ports, func(cp corev1.ContainerPort) bool {
			return cp.Name == target || strconv.Itoa(int(cp.ContainerPort)) == target
		})
		if !found {
			c.errorf("%s: port %s: targetPort %s is not a containerPort of job %s", where, p.Name, target, run.Name)
			continue
		}
		for _, cp := range ct.Ports {
			if (cp.Name == target || strconv.Itoa(int(cp.ContainerPort)) == target) && strconv.Itoa(int(cp.ContainerPort)) != metricsPort {
				c.errorf("%s: port %s: targetPort %s is container port %d, not --metrics-addr's %s", where, p.Name, target, cp.ContainerPort, metricsPort)
			}
		}
	}
}

// check returns every problem of the manifests, in words.
func check(m *manifests) []string {
	c := &checker{m: m}
	var spaces []string
	for _, o := range m.namespacedMeta() {
		if !slices.Contains(spaces, o.Namespace) {
			spaces = append(spaces, o.Namespace)
		}
	}
	if len(spaces) > 1 {
		c.errorf("the objects are in different namespaces %q: their references would not hold", spaces)
	}
	for _, need := range []struct{ kind, name string }{
		{"Job", runJobName}, {"Job", mergeJobName}, {"ConfigMap", configName},
		{"Secret", secretName}, {"PersistentVolumeClaim", resultsClaim},
	} {
		if _, ok := m.files[need.kind+"/"+need.name]; !ok {
			c.errorf("no %s %s in the manifests (the README relies on it)", need.kind, need.name)
		}
	}
	if pvc, ok := m.claims[resultsClaim]; ok {
		if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
			c.errorf("%s: access modes %v lack ReadWriteMany: the instances run on several nodes at once", c.where("PersistentVolumeClaim", resultsClaim), pvc.Spec.AccessModes)
		}
	}
	var runEnvs map[string]env
	for _, name := range sortedKeys(m.jobs) {
		envs := c.podChecks(m.jobs[name])
		if name == runJobName {
			runEnvs = envs
		}
	}
	run, merge := m.jobs[runJobName], m.jobs[mergeJobName]
	if run == nil {
		return dedup(c.problems)
	}
	if ct := c.container(run, runContainer); ct != nil {
		results, written := c.runJobChecks(run, ct, runEnvs[runContainer])
		if merge != nil && written {
			c.mergeJobChecks(merge, results, ct.Image)
		}
		port := ""
		opts, _ := optionValues(ct.Args)
		if v := opts["metrics-addr"]; len(v) == 1 {
			_, port, _ = net.SplitHostPort(v[0])
		}
		for _, name := range sortedKeys(m.services) {
			c.serviceChecks(m.services[name], ct, run, merge, port)
		}
	}
	return dedup(c.problems)
}

// dedup drops the repeats of a problem found twice (the merge job's
// environment is built twice, for instance), keeping the order.
func dedup(problems []string) []string {
	var out []string
	for _, p := range problems {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// namespacedMeta are the metadata of every object but the Namespaces.
func (m *manifests) namespacedMeta() []metav1.ObjectMeta {
	var out []metav1.ObjectMeta
	for _, o := range m.jobs {
		out = append(out, o.ObjectMeta)
	}
	for _, o := range m.configMaps {
		out = append(out, o.ObjectMeta)
	}
	for _, o := range m.secrets {
		out = append(out, o.ObjectMeta)
	}
	for _, o := range m.claims {
		out = append(out, o.ObjectMeta)
	}
	for _, o := range m.services {
		out = append(out, o.ObjectMeta)
	}
	return out
}

func sortedKeys[T any](objs map[string]*T) []string {
	keys := make([]string, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestManifests decodes every manifest strictly and checks that they agree.
func TestManifests(t *testing.T) {
	m, err := loadManifests(readManifestFiles(t, manifestDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check(m) {
		t.Error(p)
	}
	t.Logf("%d Jobs, %d ConfigMaps, %d Secrets, %d PersistentVolumeClaims, %d Services, %d Namespaces",
		len(m.jobs), len(m.configMaps), len(m.secrets), len(m.claims), len(m.services), len(m.namespaces))
}

// TestManifestsInOneStream checks the splitting of multi-document files:
// all the manifests concatenated with "---" give the same objects, and
// still pass.
func TestManifestsInOneStream(t *testing.T) {
	files := readManifestFiles(t, manifestDir)
	var all bytes.Buffer
	for _, name := range sortedFileNames(files) {
		all.WriteString("---\n")
		all.Write(files[name])
		if !bytes.HasSuffix(files[name], []byte("\n")) {
			all.WriteString("\n")
		}
		all.WriteString("--- # next\n")
	}
	one, err := loadManifests(map[string][]byte{"all.yaml": all.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	each, err := loadManifests(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.files) != len(each.files) {
		t.Errorf("one stream has %d objects, the files %d", len(one.files), len(each.files))
	}
	for _, p := range check(one) {
		t.Error(p)
	}
}

func sortedFileNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// replaceOnce replaces old, which must occur exactly once, so that a
// mutation cannot silently miss after an edit of the files.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times, not once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

// TestStrictDecoding shows that the decoder refuses what Kubernetes would
// refuse or silently drop: a misspelt field at the top or deep in the pod
// template, a value of the wrong type, a duplicate key, an unknown kind.
func TestStrictDecoding(t *testing.T) {
	files := readManifestFiles(t, manifestDir)
	job := string(files["job.yaml"])
	if _, err := decodeStrict([]byte(job)); err != nil {
		t.Fatalf("job.yaml as it is: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"misspelt spec field", "  completions: 3", "  completionz: 3", `unknown field "spec.completionz"`},
		{"misspelt container field", "containerPort: 9100", "containerport: 9100", `unknown field "spec.template.spec.containers[0].ports[0].containerport"`},
		{"misspelt metadata field", "  annotations:", "  anotations:", `unknown field "spec.template.metadata.anotations"`},
		{"wrong type", "  completions: 3", "  completions: three", "completions"},
		{"number for a string", `prometheus.io/port: "9100"`, "prometheus.io/port: 9100", "annotations"},
		{"duplicate key", "  parallelism: 3", "  parallelism: 3\n  parallelism: 4", "parallelism"},
		{"misspelt field in case only", "  backoffLimit: 0", "  backofflimit: 0", `unknown field "spec.backofflimit"`},
		{"unknown kind", "kind: Job", "kind: Jobs", `kind "Jobs"`},
		{"unknown apiVersion", "apiVersion: batch/v1", "apiVersion: batch/v2", `apiVersion "batch/v2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := replaceOnce(t, job, tc.old, tc.new)
			_, err := decodeStrict([]byte(doc))
			if err == nil {
				t.Fatalf("decoded without an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
			if _, err := loadManifests(map[string][]byte{"job.yaml": []byte(doc)}); err == nil {
				t.Fatalf("loadManifests took it")
			}
		})
	}
}

// TestChecksCatchMistakes makes one mistake at a time in a copy of the
// manifests and expects check to name it: each check can fail.
func TestChecksCatchMistakes(t *testing.T) {
	files := readManifestFiles(t, manifestDir)
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"parallelism differs", "job.yaml", "parallelism: 3", "parallelism: 4", "parallelism (4)"},
		{"completions differ", "job.yaml", "completions: 3", "completions: 4", "completions (4)"},
		{"N of --instance differs", "job.yaml", "--instance=$(JOB_COMPLETION_INDEX)/3", "--instance=$(JOB_COMPLETION_INDEX)/4", "N is 4"},
		{"not Indexed", "job.yaml", "completionMode: Indexed", "completionMode: NonIndexed", "not Indexed"},
		{"retries", "job.yaml", "backoffLimit: 0", "backoffLimit: 2", "backoffLimit"},
		{"undefined variable in args", "job.yaml", "--time=$(TIME)", "--time=$(DURATION)", "$(DURATION) is not defined"},
		{"index from a label", "job.yaml", "metadata.annotations['batch.kubernetes.io/job-completion-index']", "metadata.labels['batch.kubernetes.io/job-completion-index']", "env JOB_COMPLETION_INDEX is not defined by a fieldRef"},
		{"index env removed", "job.yaml", "- name: JOB_COMPLETION_INDEX", "- name: COMPLETION_INDEX", "$(JOB_COMPLETION_INDEX) is not defined"},
		{"Secret key renamed", "secret.yaml", "password: change-me", "passwd: change-me", "Secret sysbench-db has no key password"},
		{"Secret renamed", "secret.yaml", "name: sysbench-db", "name: sysbench-database", "Secret sysbench-db is in no manifest"},
		{"ConfigMap key renamed", "configmap.yaml", `THREADS: "8"`, `THREADZ: "8"`, "has no key THREADS"},
		{"ConfigMap value not a number", "configmap.yaml", `THREADS: "8"`, `THREADS: "eight"`, "--threads=eight: not a positive integer"},
		{"START_AT not a time", "configmap.yaml", `START_AT: "2030-01-01T00:00:00Z"`, `START_AT: "in two minutes"`, "START_AT is neither"},
		{"unknown driver", "configmap.yaml", "DB_DRIVER: pgsql", "DB_DRIVER: postgres", "DB_DRIVER must be mysql or pgsql"},
		{"RUN_ID a path", "configmap.yaml", "RUN_ID: run-1", "RUN_ID: runs/1", "is not one directory name"},
		{"custom script key renamed", "configmap.yaml", "  workload.lua: |", "  work.lua: |", "has no key workload.lua"},
		{"custom script not mounted there", "job.yaml", "mountPath: /etc/sysbench", "mountPath: /etc/sb", "the custom script /etc/sysbench/workload.lua (configmap.yaml): not on a ConfigMap volume"},
		{"claim renamed", "pvc.yaml", "name: sysbench-results", "name: sysbench-data", "PersistentVolumeClaim sysbench-results is in no manifest"},
		{"claim not RWX", "pvc.yaml", "- ReadWriteMany", "- ReadWriteOnce", "lack ReadWriteMany"},
		{"one results file for all", "job.yaml", "--results=/results/instance-$(JOB_COMPLETION_INDEX).json", "--results=/results/instance.json", "the instances would write the same file"},
		{"results on the emptyDir", "job.yaml", "--results=/results/instance-", "--results=/tmp/instance-", "not on a PersistentVolumeClaim"},
		{"results on the read-only root", "job.yaml", "--results=/results/instance-", "--results=/var/instance-", "is on no volume"},
		{"subPathExpr undefined", "job.yaml", "subPathExpr: $(RUN_ID)", "subPathExpr: $(RUN)", "$(RUN) is not defined"},
		{"merge reads another directory", "merge-job.yaml", "            - /results\n", "            - /tmp\n", "not the directory where job sysbench writes"},
		{"merge reads another subPath", "merge-job.yaml", "subPathExpr: $(RUN_ID)", "subPath: merged", "not the directory where job sysbench writes"},
		{"merge on another claim", "merge-job.yaml", "claimName: sysbench-results", "claimName: other-results", "PersistentVolumeClaim other-results is in no manifest"},
		{"merged file on the emptyDir", "merge-job.yaml", "--results=/results/merged.json", "--results=/tmp/merged.json", "the merged file would be lost"},
		{"merge image differs", "merge-job.yaml", "image: sysbench-go:latest", "image: sysbench-go:old", "is not the run job's"},
		{"scrape port differs", "job.yaml", `prometheus.io/port: "9100"`, `prometheus.io/port: "9200"`, `prometheus.io/port is "9200"`},
		{"scrape off", "job.yaml", `prometheus.io/scrape: "true"`, `prometheus.io/scrape: "false"`, "prometheus.io/scrape"},
		{"metrics port differs", "job.yaml", "--metrics-addr=:9100", "--metrics-addr=:9101", "port 9101 is not a containerPort"},
		{"container port differs", "job.yaml", "containerPort: 9100", "containerPort: 9200", "port 9100 is not a containerPort"},
		{"root file system writable", "job.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem"},
		{"no /tmp", "merge-job.yaml", "mountPath: /tmp", "mountPath: /scratch", "/tmp is not an emptyDir"},
		{"root allowed", "job.yaml", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot"},
		{"service targets another port", "service.yaml", "targetPort: metrics", "targetPort: 9200", "targetPort 9200 is not a containerPort"},
		{"service selects the merge", "service.yaml", "app.kubernetes.io/component: instance", "app.kubernetes.io/component: merge", "does not select job sysbench's pods"},
		{"service not headless", "service.yaml", "clusterIP: None", "clusterIP: \"\"", "not None"},
		{"namespaces differ", "configmap.yaml", "  name: sysbench-config\n", "  name: sysbench-config\n  namespace: other\n", "different namespaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := files[tc.file]; !ok {
				t.Fatalf("no %s", tc.file)
			}
			mutated := map[string][]byte{}
			for k, v := range files {
				mutated[k] = v
			}
			mutated[tc.file] = []byte(replaceOnce(t, string(files[tc.file]), tc.old, tc.new))
			m, err := loadManifests(mutated)
			if err != nil {
				t.Fatalf("the mutation does not decode: %v", err)
			}
			problems := check(m)
			for _, p := range problems {
				if strings.Contains(p, tc.want) {
					t.Logf("caught: %s", p)
					return
				}
			}
			t.Errorf("no problem says %q; the problems:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}

// TestExpand pins the $(VAR) expansion to Kubernetes' rules.
func TestExpand(t *testing.T) {
	e := env{"A": {value: "1", known: true}, "S": {}}
	for _, tc := range []struct {
		in, want string
		refs     []string
	}{
		{"--x=$(A)", "--x=1", []string{"A"}},
		{"$(A)$(A)/$(S)", "11/{S}", []string{"A", "A", "S"}},
		{"$$(A)", "$(A)", nil},
		{"$(B)", "$(B)", []string{"B"}},
		{"$(A", "$(A", nil},
		{"a$b$", "a$b$", nil},
		{"--$(A)-host", "--1-host", []string{"A"}},
	} {
		got, refs := expand(tc.in, e.lookup)
		if got != tc.want || !slices.Equal(refs, tc.refs) {
			t.Errorf("expand(%q) = %q, %q; want %q, %q", tc.in, got, refs, tc.want, tc.refs)
		}
	}
}

// TestEnvFrom covers the container variables that come from envFrom: a
// ConfigMap's keys define them; a missing ConfigMap defines nothing.
func TestEnvFrom(t *testing.T) {
	files := readManifestFiles(t, manifestDir)
	job := string(files["job.yaml"])
	job = replaceOnce(t, job, `            - name: THREADS
              valueFrom:
                configMapKeyRef:
                  name: sysbench-config
                  key: THREADS
`, "")
	for _, tc := range []struct {
		configMap string
		want      []string
	}{
		{configName, nil},
		{"sysbench-other", []string{
			"envFrom: ConfigMap sysbench-other is in no manifest",
			"args: $(THREADS) is not defined",
		}},
	} {
		t.Run(tc.configMap, func(t *testing.T) {
			mutated := map[string][]byte{}
			for k, v := range files {
				mutated[k] = v
			}
			mutated["job.yaml"] = []byte(replaceOnce(t, job, "          env:\n",
				"          envFrom:\n            - configMapRef:\n                name: "+tc.configMap+"\n          env:\n"))
			m, err := loadManifests(mutated)
			if err != nil {
				t.Fatal(err)
			}
			problems := check(m)
			if len(tc.want) == 0 && len(problems) > 0 {
				t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no problem says %q; the problems:\n%s", w, strings.Join(problems, "\n"))
				}
			}
		})
	}
}
