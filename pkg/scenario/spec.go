package scenario

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sharedParts are the immutable parts every pod of a workload shares.
type sharedParts struct {
	labels       map[string]string
	ownerRefs    []metav1.OwnerReference
	generateName string
	spec         v1.PodSpec        // without NodeName
	ready        []v1.PodCondition // Ready since readySince
	readySince   time.Time
	qos          v1.PodQOSClass
	yes          bool
}

// commonParts are shared by the pods of every workload of one Generate
// call (never across calls, so a caller modifying one result cannot
// change another).
type commonParts struct {
	gracePeriod, tolerationSeconds int64
	noExecute                      []v1.Toleration
	priorities                     map[string]int32
}

func newCommonParts() *commonParts {
	c := &commonParts{gracePeriod: 30, tolerationSeconds: 300, priorities: priorityValues()}
	c.noExecute = []v1.Toleration{
		{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &c.tolerationSeconds},
		{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &c.tolerationSeconds},
	}
	return c
}

func newSharedParts(w *workload, common *commonParts) *sharedParts {
	yes := true
	sp := &sharedParts{yes: true, generateName: w.ownerName() + "-", qos: qosClass(w.limits),
		ownerRefs: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: w.kind.ownerKind(), Name: w.ownerName(),
			UID: w.ownerUID, Controller: &yes, BlockOwnerDeletion: &yes}},
		readySince: w.rollout.Add(2*time.Minute + 30*time.Second),
	}
	sp.ready = readyConditions(sp.readySince)
	switch w.kind {
	case kindDeployment:
		sp.labels = map[string]string{LabelApp: w.name, "pod-template-hash": w.hash}
	case kindDaemonSet:
		sp.labels = map[string]string{LabelApp: w.name, "controller-revision-hash": w.hash, "pod-template-generation": "1"}
	case kindStatefulSet:
		sp.generateName = ""
	}
	sp.spec = podSpecTemplate(w, common)
	return sp
}

// podSpecTemplate is the spec of the workload's pods: one container with
// its requests (and limits), priority, tolerations (the admission
// defaults; DaemonSets tolerate everything; dedicated workloads their
// team's taint, with a matching nodeSelector), affinity and zone spread.
func podSpecTemplate(w *workload, common *commonParts) v1.PodSpec {
	c := v1.Container{Name: w.container, Image: w.image, ImagePullPolicy: v1.PullIfNotPresent,
		TerminationMessagePath: v1.TerminationMessagePathDefault, TerminationMessagePolicy: v1.TerminationMessageReadFile,
		Resources: containerResources(w)}
	spec := v1.PodSpec{RestartPolicy: v1.RestartPolicyAlways, TerminationGracePeriodSeconds: &common.gracePeriod,
		DNSPolicy: v1.DNSClusterFirst, ServiceAccountName: "default", SchedulerName: v1.DefaultSchedulerName,
		Tolerations: common.noExecute, PriorityClassName: w.priorityClass}
	if v, ok := common.priorities[w.priorityClass]; ok {
		spec.Priority = &v
	}
	if w.emptyDir {
		spec.Volumes = []v1.Volume{{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
		c.VolumeMounts = []v1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
	}
	if w.kind == kindStatefulSet {
		c.VolumeMounts = []v1.VolumeMount{{Name: "data", MountPath: "/data"}}
	}
	spec.Containers = []v1.Container{c}
	switch {
	case w.kind == kindDaemonSet:
		spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
	case w.team >= 0:
		team := dedicatedTeams[w.team]
		spec.Tolerations = append([]v1.Toleration{{Key: LabelDedicated, Operator: v1.TolerationOpEqual, Value: team,
			Effect: v1.TaintEffectNoSchedule}}, common.noExecute...)
		spec.NodeSelector = map[string]string{LabelDedicated: team}
	}
	spec.Affinity = affinity(w)
	if w.spread != spreadNone {
		spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{spreadConstraint(w)}
	}
	return spec
}

func containerResources(w *workload) v1.ResourceRequirements {
	r := v1.ResourceRequirements{Requests: v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(w.cpu, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(w.mem, resource.BinarySI)}}
	switch w.limits {
	case limitsGuaranteed:
		r.Limits = r.Requests
	case limitsBurstable:
		r.Limits = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(2*w.cpu, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(2*w.mem, resource.BinarySI)}
	}
	return r
}

func qosClass(l limitKind) v1.PodQOSClass {
	if l == limitsGuaranteed {
		return v1.PodQOSGuaranteed
	}
	return v1.PodQOSBurstable
}

// affinity: SSD workloads require disktype=ssd; pod anti-affinity on the
// hostname against the workload's own pods, preferred (weight 100) or
// required.
func affinity(w *workload) *v1.Affinity {
	if !w.ssd && !w.preferredAnti && !w.requiredAnti {
		return nil
	}
	a := &v1.Affinity{}
	if w.ssd {
		a.NodeAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: LabelDisk, Operator: v1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}
	}
	term := v1.PodAffinityTerm{TopologyKey: v1.LabelHostname, LabelSelector: appSelector(w)}
	switch {
	case w.requiredAnti:
		a.PodAntiAffinity = &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}
	case w.preferredAnti:
		a.PodAntiAffinity = &v1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{
			{Weight: 100, PodAffinityTerm: term}}}
	}
	return a
}

func spreadConstraint(w *workload) v1.TopologySpreadConstraint {
	c := v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: LabelZone, WhenUnsatisfiable: v1.ScheduleAnyway,
		LabelSelector: appSelector(w)}
	if w.spread == spreadSoft2 || w.spread == spreadHard2 {
		c.MaxSkew = 2
	}
	if w.spread == spreadHard1 || w.spread == spreadHard2 {
		c.WhenUnsatisfiable = v1.DoNotSchedule
	}
	return c
}

func appSelector(w *workload) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{LabelApp: w.name}}
}

func readyConditions(since time.Time) []v1.PodCondition {
	t := metav1.NewTime(since)
	c := func(typ v1.PodConditionType) v1.PodCondition {
		return v1.PodCondition{Type: typ, Status: v1.ConditionTrue, LastTransitionTime: t}
	}
	return []v1.PodCondition{c(v1.PodReadyToStartContainers), c(v1.PodInitialized), c(v1.PodReady),
		c(v1.ContainersReady), c(v1.PodScheduled)}
}
