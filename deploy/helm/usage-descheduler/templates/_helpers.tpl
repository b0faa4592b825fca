{{/* Chart name. */}}
{{- define "usage-descheduler.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: the release name if it already contains the chart name. */}}
{{- define "usage-descheduler.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Namespace of every namespaced object: namespaceOverride or the release's. */}}
{{- define "usage-descheduler.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "usage-descheduler.selectorLabels" -}}
app.kubernetes.io/name: {{ include "usage-descheduler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "usage-descheduler.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "usage-descheduler.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "usage-descheduler.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "usage-descheduler.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Leader election is used by Deployments only. */}}
{{- define "usage-descheduler.leaderElect" -}}
{{- if and (eq .Values.kind "Deployment") .Values.leaderElection.enabled }}true{{ end }}
{{- end }}

{{/* resourceNamescape: upstream's old misspelling, still honoured. */}}
{{- define "usage-descheduler.leaseNamespace" -}}
{{- $ns := default .Values.leaderElection.resourceNamescape .Values.leaderElection.resourceNamespace }}
{{- default (include "usage-descheduler.namespace" .) $ns }}
{{- end }}

{{/* Where the binary keeps its history ConfigMap: the lease namespace with
leader election, else its own (POD_NAMESPACE). */}}
{{- define "usage-descheduler.stateNamespace" -}}
{{- if include "usage-descheduler.leaderElect" . }}{{ include "usage-descheduler.leaseNamespace" . }}{{ else }}{{ include "usage-descheduler.namespace" . }}{{ end }}
{{- end }}

{{/* The instance name owning the soft taints (--instance-name): the
value, else <lease namespace>/<lease name>, the binary's own default. */}}
{{- define "usage-descheduler.instanceName" -}}
{{- .Values.instanceName | default (printf "%s/%s" (include "usage-descheduler.leaseNamespace" .) .Values.leaderElection.resourceName) }}
{{- end }}

{{/* Fails rendering on values that cannot work. */}}
{{- define "usage-descheduler.validate" -}}
{{- if not (has .Values.kind (list "Deployment" "CronJob" "Job")) }}
{{- fail (printf "kind must be Deployment, CronJob or Job, not %q" .Values.kind) }}
{{- end }}
{{- if and (eq .Values.kind "Deployment") (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicas > 1 needs leaderElection.enabled: only the lease holder may evict" }}
{{- end }}
{{- if and (eq .Values.kind "Deployment") (not .Values.deschedulingInterval) }}
{{- fail "kind Deployment needs deschedulingInterval (e.g. 5m)" }}
{{- end }}
{{- if not (has .Values.softTaint.untaintHook (list "pre-delete" "post-delete")) }}
{{- fail (printf "softTaint.untaintHook must be pre-delete or post-delete, not %q" .Values.softTaint.untaintHook) }}
{{- end }}
{{- if and .Values.serviceMonitor.enabled (not .Values.service.enabled) }}
{{- fail "serviceMonitor.enabled needs service.enabled" }}
{{- end }}
{{- end }}

{{/* The container arguments (upstream's, plus --secure-port from port). */}}
{{- define "usage-descheduler.args" -}}
- --policy-config-file=/policy-dir/policy.yaml
- --history-configmap={{ .Values.historyConfigMap }}
- --instance-name={{ include "usage-descheduler.instanceName" . }}
{{- if eq .Values.kind "Deployment" }}
- --descheduling-interval={{ .Values.deschedulingInterval }}
{{- end }}
- --secure-port={{ .Values.port }}
{{- range $key, $value := .Values.cmdOptions }}
{{- if eq $value nil }}
- {{ printf "--%s" $key | quote }}
{{- else }}
- {{ printf "--%s=%v" $key $value | quote }}
{{- end }}
{{- end }}
{{- if include "usage-descheduler.leaderElect" . }}
{{- with .Values.leaderElection }}
- --leader-elect=true
- --leader-elect-lease-duration={{ .leaseDuration }}
- --leader-elect-renew-deadline={{ .renewDeadline }}
- --leader-elect-retry-period={{ .retryPeriod }}
- --leader-elect-resource-lock={{ .resourceLock }}
- --leader-elect-resource-name={{ .resourceName }}
{{- end }}
- --leader-elect-resource-namespace={{ include "usage-descheduler.leaseNamespace" . }}
{{- end }}
{{- end }}

{{/* The service-account volumes are added when the token is not automounted (as upstream). */}}
{{- define "usage-descheduler.extraSAVolumes" -}}
{{- if not .Values.automountServiceAccountToken }}true{{ end }}
{{- end }}

{{/* The pod template shared by the three kinds. */}}
{{- define "usage-descheduler.podTemplate" -}}
metadata:
  labels:
    {{- include "usage-descheduler.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/policy: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "usage-descheduler.serviceAccountName" . }}
  {{- if kindIs "bool" .Values.automountServiceAccountToken }}
  automountServiceAccountToken: {{ .Values.automountServiceAccountToken }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.podSecurityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.dnsConfig }}
  dnsConfig:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if ne .Values.kind "Deployment" }}
  restartPolicy: Never
  {{- end }}
  # SIGTERM: no new eviction starts, the one in flight finishes (within
  # --eviction-timeout, 10s), the history is saved, the lease released and
  # queued Events written.
  terminationGracePeriodSeconds: 30
  {{- with .Values.initContainers }}
  initContainers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: descheduler
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      {{- with .Values.command }}
      command:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      args:
        {{- include "usage-descheduler.args" . | nindent 8 }}
      env:
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        # No GOMEMLIMIT: the binary sets the Go memory limit to 90% of the
        # container's memory limit, leaving room for what the Go heap does
        # not count (docs/operations.md, "Sizing").
      ports:
        {{- with .Values.ports }}
        {{- toYaml . | nindent 8 }}
        {{- else }}
        - name: http-metrics
          containerPort: {{ .Values.port }}
          protocol: TCP
        {{- end }}
      {{- with .Values.livenessProbe }}
      livenessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.readinessProbe }}
      readinessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.securityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      volumeMounts:
        - name: policy
          mountPath: /policy-dir
          readOnly: true
        {{- if include "usage-descheduler.extraSAVolumes" . }}
        {{- with .Values.extraServiceAccountVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- end }}
  volumes:
    - name: policy
      configMap:
        name: {{ include "usage-descheduler.fullname" . }}-policy
    {{- if include "usage-descheduler.extraSAVolumes" . }}
    {{- with .Values.extraServiceAccountVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if .Values.affinity }}
  affinity:
    {{- toYaml .Values.affinity | nindent 4 }}
  {{- else if eq .Values.kind "Deployment" }}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                {{- include "usage-descheduler.selectorLabels" . | nindent 16 }}
  {{- end }}
  {{- with .Values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/* Lease rules: get/update by name only; the chart pre-creates the Lease. */}}
{{- define "usage-descheduler.leaseRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ .Values.leaderElection.resourceName | quote }}]
  verbs: ["get", "update"]
{{- end }}
