/* proto_layouts.c - the measurement behind doc/format.md's choice of design:
 * 2000 scenes of 15 float64 signals x 89 samples written as one group per
 * scene (with and without a time dimension scale), as SWMR appends to
 * stacked datasets, and as shards of stacked scenes (fsync + rename).
 * Standalone, not built by make:
 *   gcc -O2 -o proto proto_layouts.c $(pkg-config --cflags --libs hdf5) -lhdf5_hl
 *   ./proto groups; ./proto groups scales; ./proto shards 256; ./proto swmr [each] */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#ifndef NS
#define NS 2000
#endif
#define NSIG 15
#define NSAMP 89
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double data[NSIG][NSAMP];
static long fsize(const char*p){struct stat s;stat(p,&s);return s.st_size;}
static void syncf(const char*p){int fd=open(p,O_RDONLY);fsync(fd);close(fd);}
int main(int argc,char**argv){
  const char*mode=argv[1];
  for(int s=0;s<NSIG;s++)for(int k=0;k<NSAMP;k++)data[s][k]=s*0.37+k*1e-3;
  double t0=now();
  long datab=(long)NS*NSIG*NSAMP*8;
  if(!strcmp(mode,"groups")){
    hid_t fapl=H5Pcreate(H5P_FILE_ACCESS);H5Pset_libver_bounds(fapl,H5F_LIBVER_V18,H5F_LIBVER_V18);
    hid_t f=H5Fcreate("g.h5",H5F_ACC_TRUNC,H5P_DEFAULT,fapl);
    hid_t sc=H5Gcreate2(f,"scenes",0,0,0);
    hsize_t d[1]={NSAMP};hid_t sp=H5Screate_simple(1,d,NULL);
    int scales=argc>2;
    double last=now();
    for(int i=0;i<NS;i++){char nm[32];sprintf(nm,"%06d",i);
      hid_t g=H5Gcreate2(sc,nm,0,0,0);
      hid_t t=H5Dcreate2(g,"time",H5T_IEEE_F64LE,sp,0,0,0);H5Dwrite(t,H5T_NATIVE_DOUBLE,0,0,0,data[0]);
      if(scales)H5DSset_scale(t,"time");
      for(int s=0;s<NSIG;s++){char dn[16];sprintf(dn,"s%d",s);hid_t ds=H5Dcreate2(g,dn,H5T_IEEE_F64LE,sp,0,0,0);
        H5Dwrite(ds,H5T_NATIVE_DOUBLE,0,0,0,data[s]);if(scales)H5DSattach_scale(ds,t,0);H5Dclose(ds);}
      H5Dclose(t);H5Gclose(g);
      if(now()-last>1){H5Fflush(f,H5F_SCOPE_LOCAL);last=now();}
    }
    H5Gclose(sc);H5Fclose(f);syncf("g.h5");
    double dt=now()-t0;long sz=fsize("g.h5");
    printf("groups%s: %.3f ms/scene, file %ld B, data %ld B, metadata share %.1f%%\n",scales?"+scales":"",dt/NS*1e3,sz,datab,100.0*(sz-datab)/sz);
  } else if(!strcmp(mode,"shards")){
    int batch=atoi(argv[2]);
    mkdir("shards",0755);
    static double buf[NSIG][NS*NSAMP];
    int nb=0;
    long total=0;
    for(int i=0;i<NS;i++){
      for(int s=0;s<NSIG;s++)memcpy(buf[s]+(long)nb*NSAMP,data[s],sizeof data[s]);
      nb++;
      if(nb==batch||i==NS-1){char tmp[64],fin[64];sprintf(tmp,"shards/tmp%d.h5",i);sprintf(fin,"shards/shard%d.h5",i);
        hid_t f=H5Fcreate(tmp,H5F_ACC_TRUNC,0,0);hsize_t d[2]={nb,NSAMP};hid_t sp=H5Screate_simple(2,d,NULL);
        for(int s=0;s<NSIG;s++){char dn[16];sprintf(dn,"s%d",s);hid_t ds=H5Dcreate2(f,dn,H5T_IEEE_F64LE,sp,0,0,0);H5Dwrite(ds,H5T_NATIVE_DOUBLE,0,0,0,buf[s]);H5Dclose(ds);}
        H5Sclose(sp);H5Fclose(f);syncf(tmp);rename(tmp,fin);int dfd=open("shards",O_RDONLY);fsync(dfd);close(dfd);total+=fsize(fin);nb=0;}
    }
    double dt=now()-t0;
    printf("shards(batch %d): %.3f ms/scene, files %ld B, data %ld B, metadata %.1f%%\n",batch,dt/NS*1e3,total,datab,100.0*(total-datab)/total);
  } else if(!strcmp(mode,"swmr")){
    hid_t fapl=H5Pcreate(H5P_FILE_ACCESS);H5Pset_libver_bounds(fapl,H5F_LIBVER_LATEST,H5F_LIBVER_LATEST);
    hid_t f=H5Fcreate("s.h5",H5F_ACC_TRUNC,0,fapl);
    hsize_t d[2]={0,NSAMP},mx[2]={H5S_UNLIMITED,NSAMP},ch[2]={64,NSAMP};
    hid_t sp=H5Screate_simple(2,d,mx);hid_t dcpl=H5Pcreate(H5P_DATASET_CREATE);H5Pset_chunk(dcpl,2,ch);
    hid_t ds[NSIG];for(int s=0;s<NSIG;s++){char dn[16];sprintf(dn,"s%d",s);ds[s]=H5Dcreate2(f,dn,H5T_IEEE_F64LE,sp,0,dcpl,0);}
    H5Fstart_swmr_write(f);
    double last=now();
    for(int i=0;i<NS;i++){hsize_t nd[2]={i+1,NSAMP};
      for(int s=0;s<NSIG;s++){H5Dset_extent(ds[s],nd);hid_t fs=H5Dget_space(ds[s]);hsize_t off[2]={i,0},cnt[2]={1,NSAMP};
        H5Sselect_hyperslab(fs,H5S_SELECT_SET,off,0,cnt,0);hid_t ms=H5Screate_simple(2,cnt,0);H5Dwrite(ds[s],H5T_NATIVE_DOUBLE,ms,fs,0,data[s]);H5Sclose(ms);H5Sclose(fs);}
      if(argc>2 || now()-last>1){H5Fflush(f,H5F_SCOPE_LOCAL);last=now();}
    }
    for(int s=0;s<NSIG;s++)H5Dclose(ds[s]);H5Fclose(f);syncf("s.h5");
    double dt=now()-t0;long sz=fsize("s.h5");
    printf("swmr%s: %.3f ms/scene, file %ld B, data %ld B, metadata %.1f%%\n",argc>2?"(flush each)":"",dt/NS*1e3,sz,datab,100.0*(sz-datab)/sz);
  }
  return 0;
}
