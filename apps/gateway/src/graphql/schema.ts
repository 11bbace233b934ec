import { buildSchema, type GraphQLSchema } from 'graphql';
import { MUTATION_SDL } from './mutation-schema';

/**
 * The part of RunPod's GraphQL schema (`POST /graphql`) that RunPod's own clients send: runpod-python 1.12's
 * management functions and runpodctl's GraphQL commands. Types and fields are the ones those clients select or pass,
 * nothing more; introspection is not a client need (RunPod disables it), so nothing here serves it beyond what
 * graphql-js does. The mutations cover Pods, endpoint and template creation and SSH keys so far.
 */
export const LEGACY_SDL = /* GraphQL */ `
  type Query {
    myself: User
    gpuTypes(input: GpuTypeFilter): [GpuType!]!
    pod(input: PodFilter!): Pod
    dataCenters: [DataCenter!]!
    serverlessGpuPools: [ServerlessGpuPool!]!
    podTemplates(input: PodTemplateInput): [PodTemplate!]!
    podTemplate(id: String!): PodTemplate
  }

  input PodTemplateInput {
    isRunpod: Boolean
  }

  type PodTemplate {
    id: String!
    name: String!
    imageName: String!
    isServerless: Boolean!
    isPublic: Boolean!
    isRunpod: Boolean!
    category: String!
    containerDiskInGb: Int!
    volumeInGb: Int!
    volumeMountPath: String!
    ports: String!
    portsConfig: [PortConfig!]!
    env: [EnvironmentVariable!]!
    containerRegistryAuthId: String
    readme: String!
    dockerArgs: String!
  }

  type PortConfig {
    port: Int!
    name: String
  }

  input GpuTypeFilter {
    id: String
    ids: [String!]
  }

  input GpuLowestPriceInput {
    gpuCount: Int
    minMemoryInGb: Int
    minVcpuCount: Int
    totalDisk: Int
    dataCenterId: String
    secureCloud: Boolean
    includeAiApi: Boolean
    allowedCudaVersions: [String]
    compliance: [String]
  }

  input PodFilter {
    podId: String!
  }

  type User {
    id: String!
    email: String
    clientBalance: Float
    currentSpendPerHr: Float!
    spendLimit: Float
    notifyPodsStale: Boolean!
    notifyPodsGeneral: Boolean!
    notifyLowBalance: Boolean!
    pubKey: String
    pods: [Pod!]!
    networkVolumes: [NetworkVolume!]!
    endpoints: [Endpoint!]!
    podTemplates: [PodTemplate!]!
  }

  type Endpoint {
    id: String!
    name: String!
    userId: String!
    templateId: String!
    version: Int!
    type: String!
    aiKey: String
    gpuIds: String!
    gpuCount: Int!
    locations: String!
    networkVolumeId: String
    networkVolume: EndpointNetworkVolume
    idleTimeout: Int!
    scalerType: String!
    scalerValue: Int!
    workersMin: Int!
    workersMax: Int!
    workersStandby: Int!
    executionTimeoutMs: Int!
    allowedCudaVersions: String!
    minCudaVersion: String
    flashBootType: String!
    computeType: String!
    instanceIds: [String!]!
    networkVolumeIds: [EndpointNetworkVolumeRef!]!
    modelReferences: [String!]!
    env: [EnvironmentVariable!]!
    createdAt: String!
  }

  type EndpointNetworkVolumeRef {
    networkVolumeId: String!
    dataCenterId: String
  }

  type EndpointNetworkVolume {
    id: String!
    dataCenterId: String!
  }

  type EnvironmentVariable {
    key: String!
    value: String!
  }

  type NetworkVolume {
    id: String!
    name: String!
    size: Int!
    dataCenterId: String!
  }

  type GpuType {
    id: String!
    displayName: String!
    manufacturer: String!
    memoryInGb: Int!
    cudaCores: Int
    maxGpuCount: Int!
    secureCloud: Boolean!
    communityCloud: Boolean!
    securePrice: Float
    communityPrice: Float
    secureSpotPrice: Float
    communitySpotPrice: Float
    oneWeekPrice: Float
    oneMonthPrice: Float
    threeMonthPrice: Float
    lowestPrice(input: GpuLowestPriceInput): LowestPrice
  }

  type LowestPrice {
    gpuTypeId: String!
    gpuName: String!
    minMemory: Int
    minVcpu: Int
    minimumBidPrice: Float
    uninterruptablePrice: Float
    stockStatus: String
  }

  type Pod {
    id: String!
    name: String!
    imageName: String!
    desiredStatus: String!
    costPerHr: Float!
    containerDiskInGb: Int!
    volumeInGb: Int!
    volumeMountPath: String!
    gpuCount: Int!
    memoryInGb: Float!
    vcpuCount: Float!
    dockerArgs: String!
    dockerId: String
    env: [String!]!
    lastStatusChange: String
    machineId: String
    podType: String!
    port: Int
    ports: String!
    uptimeSeconds: Int!
    runtime: PodRuntime
    machine: PodMachine
  }

  type PodRuntime {
    uptimeInSeconds: Int!
    ports: [PodRuntimePort!]!
  }

  type PodRuntimePort {
    ip: String
    isIpPublic: Boolean!
    privatePort: Int!
    publicPort: Int!
    type: String!
  }

  type PodMachine {
    gpuDisplayName: String
    location: String
    podHostId: String
  }

  type DataCenter {
    id: String!
    name: String!
    location: String!
    gpuAvailability: [GpuAvailability!]!
  }

  type GpuAvailability {
    gpuTypeId: String!
    displayName: String!
    stockStatus: String
  }

  type ServerlessGpuPool {
    id: String!
    gpuTypeIds: [String!]!
  }
`;

/** The executable schema; resolvers come as the root value (see LegacyGraphqlService). */
export function legacySchema(): GraphQLSchema {
  return buildSchema(LEGACY_SDL + MUTATION_SDL);
}
