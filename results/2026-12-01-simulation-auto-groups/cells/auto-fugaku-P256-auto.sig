picks: 1=chiara 8=chiara 64=chiara 512=chiara 4096=ring 
