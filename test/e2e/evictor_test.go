package e2e

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Two Deployments older than maxPodLifeTimeSeconds, each mounting one
// pre-bound claim: the DefaultEvictor's PodsWithPVC protection, limited
// to storage class <case>-fast, keeps the pod on the fast claim and lets
// PodLifeTime evict the one on the slow claim. The claims reach the
// evictor through the live PersistentVolumeClaim informer.
func TestDefaultEvictorProtectedStorageClasses(t *testing.T) {
	tc := newCase(t, "pvcclass")
	tc.addNodes(stdNode("v1", nil))
	fast, slow := tc.name+"-fast", tc.name+"-slow"
	for _, class := range []string{fast, slow} {
		tc.boundClaim(class)
	}
	withClaim := func(claim string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		}
	}
	onFast := tc.deploy(workload{name: "onfast", replicas: 1, cpu: "100m", memory: "100Mi", mutate: withClaim(fast)})
	onSlow := tc.deploy(workload{name: "onslow", replicas: 1, cpu: "100m", memory: "100Mi", mutate: withClaim(slow)})
	sleepUntil(onSlow[0].CreationTimestamp.Add(12 * time.Second))

	profiles := fmt.Sprintf(`- name: lifetime
  pluginConfig:
  - name: DefaultEvictor
    args:
      podProtections:
        extraEnabled: [PodsWithPVC]
        config:
          PodsWithPVC:
            protectedStorageClasses: [{name: %s}]
  - name: PodLifeTime
    args: {maxPodLifeTimeSeconds: 10}
  plugins:
    deschedule:
      enabled: [PodLifeTime]
`, fast)
	run := tc.deschedule(tc.policy(profiles)).mustSucceed(tc)
	tc.expectEvicted(run, "onslow", onSlow, 1, names(onSlow))
	tc.expectEvicted(run, "onfast", onFast, 1, nil)
}

// boundClaim creates StorageClass class (no provisioner), a PersistentVolume
// of that class pre-bound to a claim named class in the case's namespace,
// and that claim, and waits until the claim is Bound. The cluster-scoped
// objects are deleted when the test ends.
func (tc *tcase) boundClaim(class string) {
	tc.t.Helper()
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "kubernetes.io/no-provisioner"}
	if _, err := tc.client.StorageV1().StorageClasses().Create(tc.ctx, sc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating StorageClass %s: %v", class, err)
	}
	tc.t.Cleanup(func() { _ = tc.client.StorageV1().StorageClasses().Delete(tc.ctx, class, metav1.DeleteOptions{}) })
	size := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	modes := []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: class},
		Spec: corev1.PersistentVolumeSpec{Capacity: size, AccessModes: modes, StorageClassName: class,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + class}},
			ClaimRef:               &corev1.ObjectReference{Namespace: tc.name, Name: class}}}
	if _, err := tc.client.CoreV1().PersistentVolumes().Create(tc.ctx, pv, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating PersistentVolume %s: %v", class, err)
	}
	tc.t.Cleanup(func() { _ = tc.client.CoreV1().PersistentVolumes().Delete(tc.ctx, class, metav1.DeleteOptions{}) })
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: tc.name, Name: class},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: class, AccessModes: modes,
			Resources: corev1.VolumeResourceRequirements{Requests: size}}}
	if _, err := tc.client.CoreV1().PersistentVolumeClaims(tc.name).Create(tc.ctx, pvc, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating PersistentVolumeClaim %s: %v", class, err)
	}
	tc.eventually("claim "+class+" bound", func() (bool, error) {
		c, err := tc.client.CoreV1().PersistentVolumeClaims(tc.name).Get(tc.ctx, class, metav1.GetOptions{})
		return err == nil && c.Status.Phase == corev1.ClaimBound, err
	})
}
