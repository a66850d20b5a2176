{{/* The name of every object: the release name, as a DNS label with room for the pod index. */}}
{{- define "trainbench.name" -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "trainbench.labels" -}}
app.kubernetes.io/name: trainbench
app.kubernetes.io/instance: {{ include "trainbench.name" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
trainbench.io/recipe: {{ .Values.recipe | quote }}
trainbench.io/stage: {{ .Values.stage | quote }}
trainbench.io/run-id: {{ .Values.runId | quote }}
{{- end -}}
