export { NetworkVolumesRepository } from './network-volumes.repository';
export { NetworkVolumesService, type DataCenterCatalog } from './network-volumes.service';
export { VolumeSizesRepository, type VolumeSize } from './volume-sizes.repository';
