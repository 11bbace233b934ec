/** Where a GPU or CPU Pod may run and its container: the fields podFindAndDeployOnDemand and deployCpuPod share. */
const POD_PLACEMENT_AND_CONTAINER_FIELDS = `
    dataCenterId: String
    countryCode: String
    dockerArgs: String
    containerDiskInGb: Int
    volumeInGb: Int
    volumeMountPath: String
    ports: String
    env: [EnvironmentVariableInput!]
    networkVolumeId: String
    containerRegistryAuthId: String
    minDownload: Int
    minUpload: Int
`;

/**
 * The mutations of the legacy GraphQL schema and their inputs (the types they answer are in ./schema.ts): the input
 * fields runpod-python and runpodctl send, nothing more.
 */
export const MUTATION_SDL = /* GraphQL */ `
  type Mutation {
    podFindAndDeployOnDemand(input: PodFindAndDeployOnDemandInput!): Pod
    deployCpuPod(input: DeployCpuPodInput!): Pod
    podStop(input: PodStopInput!): Pod
    podResume(input: PodResumeInput!): Pod
    podBidResume(input: PodBidResumeInput!): Pod
    podTerminate(input: PodTerminateInput!): Boolean
    saveEndpoint(input: EndpointInput!): Endpoint
    updateEndpointTemplate(input: UpdateEndpointTemplateInput): Endpoint
    updateUserSettings(input: UpdateUserSettingsInput): UserSettings
    saveTemplate(input: SaveTemplateInput): PodTemplate
    saveRegistryAuth(input: SaveRegistryAuthInput!): RegistryAuth
    updateRegistryAuth(input: UpdateRegistryAuthInput!): RegistryAuth
    deleteRegistryAuth(registryAuthId: String!): Boolean
  }

  input SaveRegistryAuthInput {
    name: String!
    username: String!
    password: String!
  }

  input UpdateRegistryAuthInput {
    id: String!
    username: String!
    password: String!
  }

  type RegistryAuth {
    id: String!
    name: String!
  }

  input SaveTemplateInput {
    id: String
    name: String!
    imageName: String!
    dockerArgs: String
    containerDiskInGb: Int
    volumeInGb: Int
    volumeMountPath: String
    ports: String
    env: [EnvironmentVariableInput!]
    isServerless: Boolean
    isPublic: Boolean
    containerRegistryAuthId: String
    readme: String
    startSsh: Boolean
  }

  input UpdateUserSettingsInput {
    pubKey: String
  }

  type UserSettings {
    id: String!
    pubKey: String
  }

  enum FlashBootType {
    OFF
    FLASHBOOT
    PRIORITY_FLASHBOOT
  }

  input EndpointInput {
    id: String
    name: String
    templateId: String!
    gpuIds: String
    gpuCount: Int
    locations: String
    networkVolumeId: String
    idleTimeout: Int
    scalerType: String
    scalerValue: Int
    workersMin: Int
    workersMax: Int
    executionTimeoutMs: Int
    allowedCudaVersions: String
    minCudaVersion: String
    flashBootType: FlashBootType
  }

  input UpdateEndpointTemplateInput {
    templateId: String!
    endpointId: String!
  }

  enum CloudTypeEnum {
    ALL
    SECURE
    COMMUNITY
  }

  input EnvironmentVariableInput {
    key: String!
    value: String!
  }

  input PodFindAndDeployOnDemandInput {
    name: String
    imageName: String
    templateId: String
    cloudType: CloudTypeEnum
    startSsh: Boolean
    gpuTypeId: String
    gpuCount: Int
    supportPublicIp: Boolean
    minVcpuCount: Int
    minMemoryInGb: Int
    allowedCudaVersions: [String!]
    minCudaVersion: String
    ${POD_PLACEMENT_AND_CONTAINER_FIELDS}
  }

  input DeployCpuPodInput {
    name: String
    imageName: String
    templateId: String
    cloudType: CloudTypeEnum
    startSsh: Boolean
    instanceId: String!
    supportPublicIp: Boolean
    ${POD_PLACEMENT_AND_CONTAINER_FIELDS}
  }

  input PodStopInput {
    podId: String!
  }

  input PodResumeInput {
    podId: String!
    gpuCount: Int
  }

  input PodBidResumeInput {
    podId: String!
    bidPerGpu: Float!
    gpuCount: Int
  }

  input PodTerminateInput {
    podId: String!
  }
`;
