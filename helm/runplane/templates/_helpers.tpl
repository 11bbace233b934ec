{{/* Names, labels and the environment shared by every Runplane service. */}}

{{- define "runplane.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The services in a stable order, with the port each listens on (the README's defaults). */}}
{{- define "runplane.ports" -}}
gateway: 8080
job-router: 8081
scheduler: 8082
webhook-dispatcher: 8083
billing-aggregator: 8084
{{- end -}}

{{- define "runplane.labels" -}}
app.kubernetes.io/name: runplane
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one service; call with (dict "root" $ "service" "gateway"). */}}
{{- define "runplane.selector" -}}
app.kubernetes.io/name: runplane
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .service }}
{{- end -}}

{{- define "runplane.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "runplane.workloadNamespace" -}}
{{ .Values.workloads.namespace | default .Release.Namespace }}
{{- end -}}

{{- define "runplane.secretName" -}}
{{ include "runplane.fullname" . }}-config
{{- end -}}

{{/* The Secret (in the workload namespace) the volume-s3 pods read DATABASE_URL and RUNPLANE_ENCRYPTION_KEY from. */}}
{{- define "runplane.volumeS3Secret" -}}
{{ .Values.volumeS3.existingSecret | default (printf "%s-volume-s3" (include "runplane.fullname" .)) }}
{{- end -}}

{{/* The job-router URL workers use: the value, else the job-router's in-cluster Service. */}}
{{- define "runplane.jobApiUrl" -}}
{{- if .Values.workloads.jobApiUrl -}}
{{ .Values.workloads.jobApiUrl }}
{{- else -}}
http://{{ include "runplane.fullname" . }}-job-router.{{ .Release.Namespace }}.svc.cluster.local:8081
{{- end -}}
{{- end -}}

{{/* The job API's public base URL: the value, else https://<ingress.jobRouterHost>, else the in-cluster Service. */}}
{{- define "runplane.publicJobApiUrl" -}}
{{- if .Values.publicJobApiUrl -}}
{{ .Values.publicJobApiUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.jobRouterHost -}}
https://{{ .Values.ingress.jobRouterHost }}
{{- else -}}
http://{{ include "runplane.fullname" . }}-job-router.{{ .Release.Namespace }}.svc.cluster.local:8081
{{- end -}}
{{- end -}}

{{/* An env entry read from a Secret key: (dict "name" "DATABASE_URL" "secret" "s" "key" "k"). */}}
{{- define "runplane.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end -}}

{{/* DATABASE_URL, from the chart's Secret when given as a value, else from the existing Secret. */}}
{{- define "runplane.databaseEnv" -}}
{{- $v := .Values -}}
{{- if $v.database.url }}
{{ include "runplane.secretEnv" (dict "name" "DATABASE_URL" "secret" (include "runplane.secretName" .) "key" "DATABASE_URL") }}
{{- else }}
{{ include "runplane.secretEnv" (dict "name" "DATABASE_URL" "secret" $v.database.existingSecret "key" $v.database.existingSecretKey) }}
{{- end }}
{{- end -}}

{{/*
REDIS_URL: one server (the value or an existing Secret), or with mode sentinel a redis+sentinel:// URL naming every
Sentinel and the master, the password put in by Kubernetes from its Secret ($(REDIS_PASSWORD), defined first).
*/}}
{{- define "runplane.redisEnv" -}}
{{- $v := .Values -}}
{{- if eq $v.redis.mode "sentinel" }}
{{- $s := $v.redis.sentinel }}
{{- if $s.passwordSecret }}
{{ include "runplane.secretEnv" (dict "name" "REDIS_PASSWORD" "secret" $s.passwordSecret "key" $s.passwordSecretKey) }}
{{- end }}
- name: REDIS_URL
  value: {{ printf "%s://%s%s/%s" (ternary "rediss+sentinel" "redis+sentinel" $s.tls) (ternary ":$(REDIS_PASSWORD)@" "" (ne $s.passwordSecret "")) (join "," $s.hosts) $s.masterName | quote }}
{{- else if $v.redis.url }}
{{ include "runplane.secretEnv" (dict "name" "REDIS_URL" "secret" (include "runplane.secretName" .) "key" "REDIS_URL") }}
{{- else }}
{{ include "runplane.secretEnv" (dict "name" "REDIS_URL" "secret" $v.redis.existingSecret "key" $v.redis.existingSecretKey) }}
{{- end }}
{{- end -}}

{{/* The settings every service reads. */}}
{{- define "runplane.commonEnv" -}}
{{- $v := .Values -}}
- name: HOST
  value: "0.0.0.0"
- name: LOG_LEVEL
  value: {{ $v.logLevel | quote }}
- name: SHUTDOWN_DELAY_MS
  value: {{ mul $v.shutdownDelaySeconds 1000 | quote }}
- name: REDIS_PREFIX
  value: {{ $v.redis.prefix | quote }}
{{- if $v.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $v.otlpEndpoint | quote }}
{{- end }}
{{- include "runplane.databaseEnv" . }}
{{- include "runplane.redisEnv" . }}
{{- end -}}

{{- define "runplane.encryptionEnv" -}}
{{- $v := .Values -}}
{{- if $v.encryptionKey.value }}
{{ include "runplane.secretEnv" (dict "name" "RUNPLANE_ENCRYPTION_KEY" "secret" (include "runplane.secretName" .) "key" "RUNPLANE_ENCRYPTION_KEY") }}
{{- else }}
{{ include "runplane.secretEnv" (dict "name" "RUNPLANE_ENCRYPTION_KEY" "secret" $v.encryptionKey.existingSecret "key" $v.encryptionKey.existingSecretKey) }}
{{- end }}
{{- end -}}

{{/* Container securityContext of every Runplane container: the image's non-root user, nothing writable but /tmp. */}}
{{- define "runplane.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "runplane.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The scheduler's Kubernetes driver: namespace, GPU node selector, Lease election, the job-router URL workers use. */}}
{{- define "runplane.schedulerEnv" -}}
{{- $w := .Values.workloads -}}
{{- $s := .Values.scheduler -}}
- name: SCHEDULER_DRIVER
  value: kubernetes
- name: SCHEDULER_JOB_API_URL
  value: {{ include "runplane.jobApiUrl" . | quote }}
- name: SCHEDULER_STATE_DIR
  value: /tmp/scheduler
- name: KUBE_NAMESPACE
  value: {{ include "runplane.workloadNamespace" . | quote }}
{{- if $w.nodeSelector }}
- name: KUBE_NODE_SELECTOR
  value: {{ include "runplane.nodeSelectorText" $w.nodeSelector | quote }}
{{- end }}
- name: KUBE_QPS
  value: {{ $w.qps | quote }}
- name: KUBE_BURST
  value: {{ $w.burst | quote }}
{{- if $w.storageClass }}
- name: KUBE_STORAGE_CLASS
  value: {{ $w.storageClass | quote }}
{{- end }}
- name: KUBE_REQUEST_CONTAINER_DISK
  value: {{ $w.requestContainerDisk | quote }}
- name: KUBE_APPLY_PRIORITY_CLASSES
  value: "false"
- name: KUBE_LEADER_LEASE
  value: {{ $s.leaderLease | quote }}
- name: KUBE_LEADER_IDENTITY
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: SCHEDULER_LEADER_TTL_MS
  value: {{ $s.leaderTtlMs | quote }}
- name: SCHEDULER_TICK_MS
  value: {{ $s.tickMs | quote }}
- name: SCHEDULER_STOP_GRACE_MS
  value: {{ $s.stopGraceMs | quote }}
- name: SCHEDULER_WORKER_PING_MS
  value: {{ $s.workerPingMs | quote }}
{{- with .Values.volumeS3 }}
{{- if .enabled }}
- name: KUBE_VOLUME_S3_IMAGE
  value: {{ .image | default (include "runplane.image" $) | quote }}
{{- with .storageClass }}
- name: KUBE_VOLUME_S3_STORAGE_CLASS
  value: {{ . | quote }}
{{- end }}
- name: KUBE_VOLUME_S3_STORAGE_GB
  value: {{ .storageGb | quote }}
- name: KUBE_VOLUME_S3_DATABASE_SECRET
  value: {{ include "runplane.volumeS3Secret" $ | quote }}
- name: KUBE_VOLUME_S3_ENCRYPTION_SECRET
  value: {{ include "runplane.volumeS3Secret" $ | quote }}
- name: KUBE_VOLUME_S3_RUN_AS_USER
  value: {{ .runAsUser | quote }}
- name: KUBE_VOLUME_S3_RUN_AS_GROUP
  value: {{ .runAsGroup | quote }}
- name: KUBE_VOLUME_S3_FS_GROUP
  value: {{ .fsGroup | quote }}
{{- with .imagePullSecrets | default $.Values.imagePullSecrets }}
- name: KUBE_VOLUME_S3_IMAGE_PULL_SECRETS
  value: {{ include "runplane.secretNames" . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A list of [{name: …}] as `name,name2`. */}}
{{- define "runplane.secretNames" -}}
{{- $names := list -}}
{{- range . -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- join "," $names -}}
{{- end -}}

{{/* A label map as KUBE_NODE_SELECTOR's `key=value,…`, keys sorted. */}}
{{- define "runplane.nodeSelectorText" -}}
{{- $pairs := list -}}
{{- range $key := keys . | sortAlpha -}}
{{- $pairs = append $pairs (printf "%s=%s" $key (index $ $key)) -}}
{{- end -}}
{{ join "," $pairs }}
{{- end -}}
